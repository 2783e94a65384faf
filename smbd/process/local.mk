# smbd/process/: the master, the workers, listeners, reload, the control
# socket, sd_notify, the metrics endpoint; and main() of smbd.
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

UNIT_TESTS += testsuite/unit/test_control
