# smbd/process/: the master, the workers, listeners, reload, the control
# socket and smbcontrol, smbd-irq, sd_notify, the metrics endpoint; and
# main() of smbd.
libsmbd_a_SOURCES += \
	smbd/process/process.h smbd/process/listen.c smbd/process/pidfile.c \
	smbd/process/orphans.c smbd/process/master.c \
	smbd/process/irq_affinity.c \
	smbd/process/reload.c smbd/process/worker.c \
	smbd/process/sdnotify.c smbd/process/sdnotify.h \
	smbd/process/control.c smbd/process/control.h
# Live per-operation metrics (issue 20): the Prometheus endpoint.
libsmbd_a_SOURCES += smbd/process/metrics_http.c smbd/process/metrics_http.h

sbin_PROGRAMS += smbd/smbd
smbd_smbd_SOURCES = smbd/process/main.c
smbd_smbd_LDADD = $(SMBD_LIBS)

# smbd-irq(8): NIC queue interrupts on the workers' CPUs (lib/irqplan.c).
sbin_PROGRAMS += smbd/smbd-irq
smbd_smbd_irq_SOURCES = smbd/process/irq_main.c
smbd_smbd_irq_LDADD = $(SMBD_LIBS)

bin_PROGRAMS += smbd/smbcontrol
smbd_smbcontrol_SOURCES = smbd/process/smbcontrol_main.c
smbd_smbcontrol_LDADD = $(SMBD_LIBS)

UNIT_TESTS += testsuite/unit/test_control
