# utils/: the command-line programs an admin runs beside smbd, Samba's
# names and flags (issue 37: one room for them, above every room of the
# daemon, as the programs' main() files always were).  Each links
# libsmbd.a and talks to the running server through its tables and
# sockets, never by linking into a worker.

# smbstatus: sessions, shares, open files and locks of the running smbd;
# --profile reads the metrics table.
bin_PROGRAMS += utils/smbstatus
utils_smbstatus_SOURCES = utils/smbstatus.c utils/smbstatus.h \
	utils/smbstatus_snap.c \
	utils/smbstatus_json.c \
	utils/smbstatus_profile.c
utils_smbstatus_LDADD = $(SMBD_LIBS)

# testparm: smb.conf checked and printed as Samba's testparm does.
bin_PROGRAMS += utils/testparm
utils_testparm_SOURCES = utils/testparm_main.c
utils_testparm_LDADD = $(SMBD_LIBS)

# smbpasswd: passdb.tdb's accounts (Samba installs it in /usr/bin).
bin_PROGRAMS += utils/smbpasswd
utils_smbpasswd_SOURCES = utils/smbpasswd_main.c
utils_smbpasswd_LDADD = $(SMBD_LIBS)

# smbcontrol: messages to the running smbd through its control socket.
bin_PROGRAMS += utils/smbcontrol
utils_smbcontrol_SOURCES = utils/smbcontrol_main.c
utils_smbcontrol_LDADD = $(SMBD_LIBS)

# smbd-irq(8): NIC queue interrupts on the workers' CPUs (lib/irqplan.c).
sbin_PROGRAMS += utils/smbd-irq
utils_smbd_irq_SOURCES = utils/irq_main.c
utils_smbd_irq_LDADD = $(SMBD_LIBS)
