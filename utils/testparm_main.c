/*
 * testparm: check an smb.conf and print it, with Samba's flags and output
 * (testparm(1)), so scripts written for Samba's testparm keep working.
 *
 * Messages ("Load smb config files from ...", errors) go to stderr, the
 * dump to stdout.  Exit status 0 when the file loads and passes the logic
 * checks, 1 otherwise.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf/loadparm.h"
#include "conf/param_table.h"
#include "lib/log.h"
#include "vfs/module.h"

enum {
	OPT_PARAMETER_NAME = 256,
	OPT_SECTION_NAME,
	OPT_SHOW_ALL,
	OPT_SHOW_UNSUPPORTED,
	OPT_OPTION
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: testparm [OPTION...] [CONFIGFILE]\n"
		"  -s, --suppress-prompt        Suppress prompt for enter\n"
		"  -v, --verbose                Show default options too\n"
		"  -l, --skip-logic-checks      Skip the global checks\n"
		"      --show-all-parameters    Show the parameters, type, "
		"possible values\n"
		"      --show-unsupported       List the parameters accepted "
		"with no effect yet\n"
		"      --parameter-name=NAME    Limit testparm to a named "
		"parameter\n"
		"      --section-name=SECTION   Limit testparm to a named "
		"section\n"
		"      --option=name=value      Set smb.conf option from "
		"command line\n"
		"  -d, --debuglevel=LEVEL       Set debug level\n"
		"  -V, --version                Print version\n"
		"  -h, --help                   Show this help message\n");
}

static void show_all_parameters(FILE *out)
{
	size_t i;

	for (i = 0; i < LP__COUNT; i++) {
		const struct conf_param_def *d = &conf_params[i];
		const struct conf_enum_val *ev;

		fprintf(out, "%s=%s,%s", d->name, conf_type_name(d->type),
		       d->scope == CONF_S_GLOBAL ? "GLOBAL" : "SHARE");
		if (d->type == CONF_T_ENUM) {
			const char *sep = ",";

			for (ev = d->enums; ev->name != NULL; ev++) {
				fprintf(out, "%s%s", sep, ev->name);
				sep = "|";
			}
		}
		if (d->flags & CONF_F_COMPAT) {
			fprintf(out, ",COMPAT");
		}
		fprintf(out, "\n");
	}
}

/* The parameters taken for compatibility that do nothing yet, one a line
 * ("name (global|share)"), so an admin can grep a configuration for them
 * before moving it from Samba. */
static void show_unsupported(FILE *out)
{
	size_t i;

	for (i = 0; i < LP__COUNT; i++) {
		const struct conf_param_def *d = &conf_params[i];

		if (d->flags & CONF_F_COMPAT) {
			fprintf(out, "%s (%s)\n", d->name,
				d->scope == CONF_S_GLOBAL ? "global" : "share");
		}
	}
}

/* --option=name=value (also "--option name=value") */
static bool add_option(struct lp_ctx *lp, const char *arg)
{
	char *copy = strdup(arg);
	char *eq;
	bool ok;

	if (copy == NULL) {
		return false;
	}
	eq = strchr(copy, '=');
	if (eq == NULL) {
		fprintf(stderr, "--option %s: expected name=value\n", arg);
		free(copy);
		return false;
	}
	*eq = '\0';
	ok = lp_set_cmdline(lp, copy, eq + 1);
	free(copy);
	return ok;
}

static int show_parameter(FILE *out, const struct lp_ctx *lp,
			  const char *param, const char *section)
{
	int snum = LP_GLOBAL;
	int id;

	if (section != NULL && strcasecmp(section, "global") != 0) {
		snum = lp_find_share(lp, section);
		if (snum < 0) {
			fprintf(stderr, "Unknown section %s\n", section);
			return 1;
		}
	}
	if (strchr(param, ':') != NULL) {
		fprintf(out, "%s\n", lp_parm_str(lp, snum, param, ""));
		return 0;
	}
	id = lp_param_by_name(param);
	if (id < 0) {
		fprintf(stderr, "Parameter %s unknown\n", param);
		return 1;
	}
	fprintf(out, "%s\n", lp_str(lp, snum, (enum lp_param)id));
	return 0;
}

/* `vfs objects` naming a module this server does not have: the share
 * cannot be connected (smb2_tcon.c refuses it), which is an error, with
 * the module named (issue 34 item 7).  Samba's testparm does not look at
 * modules; its smbd refuses such a tree connect (BAD_NETWORK_NAME).
 * False when there is one. */
static bool check_vfs_objects(const struct lp_ctx *lp)
{
	bool ok = true;
	int snum;

	for (snum = LP_GLOBAL; snum < lp_num_shares(lp); snum++) {
		TALLOC_CTX *tmp;
		const char **l;

		if (snum != LP_GLOBAL &&
		    strcmp(lp_str(lp, snum, LP_VFS_OBJECTS),
			   lp_str(lp, LP_GLOBAL, LP_VFS_OBJECTS)) == 0) {
			continue;	/* [global]'s, reported once */
		}
		tmp = talloc_new(NULL);
		l = lp_list(tmp, lp, snum, LP_VFS_OBJECTS);

		for (; l != NULL && *l != NULL; l++) {
			if (vfs_module_find(*l) == NULL) {
				fprintf(stderr,
					"ERROR: [%s]: vfs objects: no module "
					"'%s' in this server: %s\n",
					lp_share_name(lp, snum), *l,
					snum == LP_GLOBAL
						? "no share that inherits "
						  "it can be connected"
						: "the share cannot be "
						  "connected");
				ok = false;
			}
		}
		talloc_free(tmp);
	}
	return ok;
}

struct testparm_opts {
	bool suppress;
	bool verbose;
	bool skip_checks;
	const char *param;
	const char *section;
};

static int run(FILE *out, struct lp_ctx *lp, const char *file,
	       const struct testparm_opts *o)
{
	int ret = 0;

	fprintf(stderr, "Load smb config files from %s\n", file);
	if (!lp_load_file(lp, file)) {
		fprintf(stderr, "Error loading services.\n");
		return 1;
	}
	fprintf(stderr, "Loaded services file OK.\n");
	if (!o->skip_checks && !lp_check(lp)) {
		ret = 1;
	}
	(void)lp_warn_compat(lp);
	if (!o->skip_checks && !check_vfs_objects(lp)) {
		ret = 1;
	}
	if (o->param != NULL) {
		int r = show_parameter(out, lp, o->param, o->section);

		return r != 0 ? r : ret;
	}
	if (o->section != NULL) {
		int snum = strcasecmp(o->section, "global") == 0
				   ? LP_GLOBAL
				   : lp_find_share(lp, o->section);

		if (snum == -1 && strcasecmp(o->section, "global") != 0) {
			fprintf(stderr, "Unknown section %s\n", o->section);
			return 1;
		}
		lp_dump_section(lp, snum, out, o->verbose);
		return ret;
	}
	fprintf(stderr, "Server role: %s\n\n",
		lp_security_ads(lp) ? "ROLE_DOMAIN_MEMBER" : "ROLE_STANDALONE");
	if (!o->suppress) {
		int c;

		fprintf(stderr, "Press enter to see a dump of your service "
				"definitions\n");
		fflush(stderr);
		do {
			c = getchar();
		} while (c != '\n' && c != EOF);
	}
	fflush(stderr);
	lp_dump(lp, out, o->verbose);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"suppress-prompt", no_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{"skip-logic-checks", no_argument, NULL, 'l'},
		{"show-all-parameters", no_argument, NULL, OPT_SHOW_ALL},
		{"show-unsupported", no_argument, NULL, OPT_SHOW_UNSUPPORTED},
		{"parameter-name", required_argument, NULL, OPT_PARAMETER_NAME},
		{"section-name", required_argument, NULL, OPT_SECTION_NAME},
		{"option", required_argument, NULL, OPT_OPTION},
		{"debuglevel", required_argument, NULL, 'd'},
		{"version", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	struct testparm_opts o = {0};
	const char *file = LP_DEFAULT_CONFIG_FILE;
	struct lp_ctx *lp;
	FILE *out = NULL;
	int c, ret, out_fd;

	/*
	 * Messages to stderr, as Samba's testparm, so stdout is the dump.
	 * lib/log writes to fd 1 by default: point fd 1 at stderr's open
	 * file (sharing its offset, unlike reopening /dev/stderr) and print
	 * the dump through a copy of the real stdout.
	 */
	out_fd = dup(STDOUT_FILENO);
	if (out_fd == -1 || dup2(STDERR_FILENO, STDOUT_FILENO) == -1 ||
	    (out = fdopen(out_fd, "w")) == NULL) {
		fprintf(stderr, "testparm: can't set up output\n");
		return 1;
	}
	log_set_role("testparm");
	lp = lp_new(NULL);
	if (lp == NULL) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "svld:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.suppress = true;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'l':
			o.skip_checks = true;
			break;
		case 'd':
			if (!log_set_levels(optarg)) {
				fprintf(stderr, "testparm: invalid debug "
						"level '%s'\n", optarg);
				talloc_free(lp);
				return 1;
			}
			break;
		case OPT_SHOW_ALL:
			show_all_parameters(out);
			fclose(out);
			talloc_free(lp);
			return 0;
		case OPT_SHOW_UNSUPPORTED:
			show_unsupported(out);
			fclose(out);
			talloc_free(lp);
			return 0;
		case OPT_PARAMETER_NAME:
			o.param = optarg;
			break;
		case OPT_SECTION_NAME:
			o.section = optarg;
			break;
		case OPT_OPTION:
			if (!add_option(lp, optarg)) {
				talloc_free(lp);
				return 1;
			}
			break;
		case 'V':
			fprintf(out, "Version %s\n", PACKAGE_VERSION);
			fclose(out);
			talloc_free(lp);
			return 0;
		case 'h':
			usage(out);
			fclose(out);
			talloc_free(lp);
			return 0;
		default:
			usage(stderr);
			talloc_free(lp);
			return 1;
		}
	}
	if (optind < argc) {
		file = argv[optind++];
	}
	if (optind < argc) {
		fprintf(stderr, "testparm: too many arguments\n");
		usage(stderr);
		talloc_free(lp);
		return 1;
	}
	ret = run(out, lp, file, &o);
	talloc_free(lp);
	if (fclose(out) != 0) {
		ret = 1;
	}
	return ret;
}
