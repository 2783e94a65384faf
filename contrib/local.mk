# contrib/: what a packaged install adds around the programs: the systemd
# unit, a logrotate file and an example smb.conf.  The unit and logrotate
# files name the installed program (after --program-suffix, default -ng)
# and the configured paths.
systemdsystemunit_DATA = contrib/systemd/smbd-ng.service
logrotatedir = $(sysconfdir)/logrotate.d
logrotate_DATA = contrib/logrotate/smbd-ng
examplesdir = $(docdir)/examples
dist_examples_DATA = contrib/examples/smb.conf
CLEANFILES += $(systemdsystemunit_DATA) $(logrotate_DATA)
EXTRA_DIST += contrib/systemd/smbd-ng.service.in \
	contrib/logrotate/smbd-ng.in contrib/quickstart.sh

contrib_subst = sed -e 's|@SBINDIR[@]|$(sbindir)|g' \
	-e 's|@RUNSTATEDIR[@]|$(runstatedir)|g' \
	-e 's|@LOCALSTATEDIR[@]|$(localstatedir)|g' \
	-e "s|@SMBD_NAME[@]|`echo smbd | sed '$(transform)'`|g" \
	-e "s|@CONF_NAME[@]|`echo smb.conf | sed '$(transform)'`|g"

contrib/systemd/smbd-ng.service: $(srcdir)/contrib/systemd/smbd-ng.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(contrib_subst) $< > $@.tmp && mv $@.tmp $@

contrib/logrotate/smbd-ng: $(srcdir)/contrib/logrotate/smbd-ng.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(contrib_subst) $< > $@.tmp && mv $@.tmp $@
