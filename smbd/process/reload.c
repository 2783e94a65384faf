/*
 * The configuration reload (SIGHUP, `smbcontrol reload-config`,
 * `systemctl reload`): the master and each worker re-read smb.conf into
 * their own copy of the parameters, then take its log settings.  Both
 * run it; it is here so that neither calls into the other's file.
 */
#include "smbd/process/process.h"
#include "smbd/smbd.h"
#include "conf/loadparm.h"
#include "lib/log.h"

bool smbd_reload_config(struct smbd_server *srv)
{
	if (!lp_reload(srv->lp)) {
		DBG_ERR("reloading %s failed: keeping the old configuration\n",
			srv->config_file);
		return false;
	}
	(void)log_set_levels(lp_str(srv->lp, LP_GLOBAL, LP_LOG_LEVEL));
	log_reopen();
	return true;
}
