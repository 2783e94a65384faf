# man/: manual pages installed by make install.
dist_man_MANS += man/smbd.8 man/smbcontrol.1 man/vfs_recycle.8 \
	man/vfs_catia.8 man/vfs_fruit.8 man/vfs_shadow_copy2.8 man/vfs_snapper.8 \
	man/smbd-irq.8
dist_man_MANS += man/smb.conf.5 man/testparm.1 man/smbpasswd.8 \
	man/smbstatus.1
