# smbd/: the daemon.
sbin_PROGRAMS += smbd/smbd
smbd_smbd_SOURCES = smbd/main.c
smbd_smbd_LDADD = $(SMBD_LIBS)
