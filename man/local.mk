# man/: manual pages installed by make install.
dist_man_MANS += man/smbd.8 man/smbcontrol.1
