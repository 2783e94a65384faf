/*
 * The smb.conf parameter table: names, types, scopes, defaults, synonyms
 * and enum values, all const.  Names and defaults follow Samba's smb.conf(5)
 * so that existing configurations keep their meaning; where our default
 * differs (`server string`) man/smb.conf.5 says so.
 *
 * The entries are in enum lp_param order; test_conf checks that the order
 * matches and that the names are sorted.
 */
#include "conf/param_table.h"

#include <ctype.h>
#include <strings.h>

/* Booleans Samba accepts for tri-state enums ("case sensitive" etc.). */
#define EV_BOOLS(yes, no)                                                     \
	{"yes", (yes), 0}, {"true", (yes), 0}, {"on", (yes), 0},              \
		{"1", (yes), 0}, {"no", (no), 0}, {"false", (no), 0},         \
		{"off", (no), 0}, { "0", (no), 0 }

/*
 * Protocol names (MS-SMB2 1.7 dialects).  SMB1 names are accepted as a
 * minimum only, clamped to SMB 2.0.2: we have no SMB1 (DESIGN.md).
 */
static const struct conf_enum_val proto_min_vals[] = {
	{"SMB2_02", LP_PROTO_SMB2_02, 0},
	{"SMB2_10", LP_PROTO_SMB2_10, 0},
	{"SMB3_00", LP_PROTO_SMB3_00, 0},
	{"SMB3_02", LP_PROTO_SMB3_02, 0},
	{"SMB3_11", LP_PROTO_SMB3_11, 0},
	{"SMB2", LP_PROTO_SMB2_10, 0}, /* as Samba: one table for min and max */
	{"SMB3", LP_PROTO_SMB3_11, 0},
	{"NT1", LP_PROTO_SMB2_02, CONF_EV_CLAMPED},
	{"LANMAN2", LP_PROTO_SMB2_02, CONF_EV_CLAMPED},
	{"LANMAN1", LP_PROTO_SMB2_02, CONF_EV_CLAMPED},
	{"COREPLUS", LP_PROTO_SMB2_02, CONF_EV_CLAMPED},
	{"CORE", LP_PROTO_SMB2_02, CONF_EV_CLAMPED},
	{"default", LP_PROTO_SMB2_02, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val proto_max_vals[] = {
	{"SMB2_02", LP_PROTO_SMB2_02, 0},
	{"SMB2_10", LP_PROTO_SMB2_10, 0},
	{"SMB3_00", LP_PROTO_SMB3_00, 0},
	{"SMB3_02", LP_PROTO_SMB3_02, 0},
	{"SMB3_11", LP_PROTO_SMB3_11, 0},
	{"SMB2", LP_PROTO_SMB2_10, 0},
	{"SMB3", LP_PROTO_SMB3_11, 0},
	{"default", LP_PROTO_SMB3_11, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val signing_vals[] = {
	{"default", LP_SIGNING_DEFAULT, 0},
	{"auto", LP_SIGNING_AUTO, 0},
	{"mandatory", LP_SIGNING_MANDATORY, 0},
	{"disabled", LP_SIGNING_DISABLED, 0},
	{"if_required", LP_SIGNING_AUTO, 0},
	{"desired", LP_SIGNING_AUTO, 0},
	{"enabled", LP_SIGNING_AUTO, 0},
	{"required", LP_SIGNING_MANDATORY, 0},
	{"force", LP_SIGNING_MANDATORY, 0},
	{"forced", LP_SIGNING_MANDATORY, 0},
	{"enforced", LP_SIGNING_MANDATORY, 0},
	EV_BOOLS(LP_SIGNING_AUTO, LP_SIGNING_DISABLED),
	{NULL, 0, 0}};

static const struct conf_enum_val encrypt_vals[] = {
	{"default", LP_ENCRYPT_DEFAULT, 0},
	{"off", LP_ENCRYPT_OFF, 0},
	{"if_required", LP_ENCRYPT_IF_REQUIRED, 0},
	{"desired", LP_ENCRYPT_DESIRED, 0},
	{"required", LP_ENCRYPT_REQUIRED, 0},
	{"disabled", LP_ENCRYPT_OFF, 0},
	{"enabled", LP_ENCRYPT_IF_REQUIRED, 0},
	{"auto", LP_ENCRYPT_IF_REQUIRED, 0},
	{"mandatory", LP_ENCRYPT_REQUIRED, 0},
	{"force", LP_ENCRYPT_REQUIRED, 0},
	{"forced", LP_ENCRYPT_REQUIRED, 0},
	{"enforced", LP_ENCRYPT_REQUIRED, 0},
	EV_BOOLS(LP_ENCRYPT_IF_REQUIRED, LP_ENCRYPT_OFF),
	{NULL, 0, 0}};

/* MS-SMB2 2.2.3.1.2 cipher ids, Samba's names. */
static const struct conf_enum_val cipher_vals[] = {
	{"AES-128-GCM", 2, 0},
	{"AES-128-CCM", 1, 0},
	{"AES-256-GCM", 4, 0},
	{"AES-256-CCM", 3, 0},
	{NULL, 0, 0}};

/* MS-SMB2 2.2.3.1.7 signing algorithm ids, Samba's names. */
static const struct conf_enum_val sign_algo_vals[] = {
	{"AES-128-GMAC", 2, 0},
	{"AES-128-CMAC", 1, 0},
	{"HMAC-SHA256", 0, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val io_backend_vals[] = {
	{"io_uring", LP_IO_URING, 0},
	{"epoll", LP_IO_EPOLL, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val server_role_vals[] = {
	{"auto", LP_ROLE_AUTO, 0},
	{"standalone server", LP_ROLE_STANDALONE, 0},
	{"member server", LP_ROLE_MEMBER, 0},
	{"classic primary domain controller", LP_ROLE_CLASSIC_PDC, 0},
	{"classic backup domain controller", LP_ROLE_CLASSIC_BDC, 0},
	{"active directory domain controller", LP_ROLE_ACTIVE_DIRECTORY_DC, 0},
	{"ipa primary domain controller", LP_ROLE_IPA_DC, 0},
	{"standalone", LP_ROLE_STANDALONE, 0},
	{"member", LP_ROLE_MEMBER, 0},
	{"domain controller", LP_ROLE_ACTIVE_DIRECTORY_DC, 0},
	{"dc", LP_ROLE_ACTIVE_DIRECTORY_DC, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val security_vals[] = {
	{"auto", LP_SEC_AUTO, 0},
	{"user", LP_SEC_USER, 0},
	{"domain", LP_SEC_DOMAIN, 0},
	{"ads", LP_SEC_ADS, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val kerberos_method_vals[] = {
	{"default", LP_KRB5_DEFAULT, 0},
	{"secrets only", LP_KRB5_SECRETS_ONLY, 0},
	{"system keytab", LP_KRB5_SYSTEM_KEYTAB, 0},
	{"dedicated keytab", LP_KRB5_DEDICATED_KEYTAB, 0},
	{"secrets and keytab", LP_KRB5_SECRETS_AND_KEYTAB, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val map_to_guest_vals[] = {
	{"Never", LP_MAP_TO_GUEST_NEVER, 0},
	{"Bad User", LP_MAP_TO_GUEST_BAD_USER, 0},
	{"Bad Password", LP_MAP_TO_GUEST_BAD_PASSWORD, 0},
	{"Bad Uid", LP_MAP_TO_GUEST_BAD_UID, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val ntlm_auth_vals[] = {
	{"ntlmv2-only", LP_NTLM_AUTH_NTLMV2_ONLY, 0},
	{"ntlmv1-permitted", LP_NTLM_AUTH_NTLMV1_PERMITTED, 0},
	{"mschapv2-and-ntlmv2-only", LP_NTLM_AUTH_MSCHAPV2_AND_NTLMV2_ONLY, 0},
	{"disabled", LP_NTLM_AUTH_DISABLED, 0},
	EV_BOOLS(LP_NTLM_AUTH_NTLMV1_PERMITTED, LP_NTLM_AUTH_NTLMV2_ONLY),
	{NULL, 0, 0}};

static const struct conf_enum_val case_sensitive_vals[] = {
	{"auto", LP_CASE_AUTO, 0},
	{"Yes", LP_CASE_YES, 0},
	{"No", LP_CASE_NO, 0},
	EV_BOOLS(LP_CASE_YES, LP_CASE_NO),
	{NULL, 0, 0}};

/* `smb3 compression` (ours: Samba 4.17 has no SMB3 compression). */
static const struct conf_enum_val smb3_compression_vals[] = {
	{"auto", LP_COMPRESS_AUTO, 0},
	EV_BOOLS(LP_COMPRESS_YES, LP_COMPRESS_NO),
	{NULL, 0, 0}};

static const struct conf_enum_val default_case_vals[] = {
	{"lower", LP_CASE_LOWER, 0},
	{"upper", LP_CASE_UPPER, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val mangled_names_vals[] = {
	{"illegal", LP_MANGLED_ILLEGAL, 0},
	{"Yes", LP_MANGLED_YES, 0},
	{"No", LP_MANGLED_NO, 0},
	EV_BOOLS(LP_MANGLED_YES, LP_MANGLED_NO),
	{NULL, 0, 0}};

static const struct conf_enum_val strict_locking_vals[] = {
	{"Auto", LP_STRICT_LOCKING_AUTO, 0},
	{"Yes", LP_STRICT_LOCKING_YES, 0},
	{"No", LP_STRICT_LOCKING_NO, 0},
	EV_BOOLS(LP_STRICT_LOCKING_YES, LP_STRICT_LOCKING_NO),
	{NULL, 0, 0}};

static const struct conf_enum_val map_readonly_vals[] = {
	{"No", LP_MAP_READONLY_NO, 0},
	{"Yes", LP_MAP_READONLY_YES, 0},
	{"permissions", LP_MAP_READONLY_PERMISSIONS, 0},
	EV_BOOLS(LP_MAP_READONLY_YES, LP_MAP_READONLY_NO),
	{NULL, 0, 0}};

static const struct conf_enum_val csc_policy_vals[] = {
	{"manual", LP_CSC_MANUAL, 0},
	{"documents", LP_CSC_DOCUMENTS, 0},
	{"programs", LP_CSC_PROGRAMS, 0},
	{"disable", LP_CSC_DISABLE, 0},
	{NULL, 0, 0}};

static const struct conf_enum_val printing_vals[] = {
	{"cups", LP_PRINT_CUPS, 0},
	{"bsd", LP_PRINT_BSD, 0},
	{"sysv", LP_PRINT_SYSV, 0},
	{"hpux", LP_PRINT_HPUX, 0},
	{"aix", LP_PRINT_AIX, 0},
	{"qnx", LP_PRINT_QNX, 0},
	{"plp", LP_PRINT_PLP, 0},
	{"lprng", LP_PRINT_LPRNG, 0},
	{"iprint", LP_PRINT_IPRINT, 0},
	{NULL, 0, 0}};

#define G CONF_S_GLOBAL
#define S CONF_S_SHARE
#define B CONF_T_BOOL
#define I CONF_T_INT
#define O CONF_T_OCTAL
#define STR CONF_T_STRING
#define L CONF_T_LIST
#define E CONF_T_ENUM
#define C CONF_F_COMPAT
#define SUB CONF_F_SUBST

#define P(id, n, t, sc, d, en, fl) [id] = {n, t, sc, d, en, fl}

const struct conf_param_def conf_params[LP__COUNT] = {
	P(LP_ACCESS_BASED_SHARE_ENUM, "access based share enum", B, S, "no",
	  NULL, 0),
	P(LP_ADMIN_USERS, "admin users", L, S, NULL, NULL, 0),
	P(LP_ADMINISTRATIVE_SHARE, "administrative share", B, S, "no", NULL, 0),
	/* Clients may make links leading out of a `wide links` share
	 * (FSCTL_SET_REPARSE_POINT, smb2_fsctl_reparse.c) */
	P(LP_ALLOW_INSECURE_WIDE_LINKS, "allow insecure wide links", B, G,
	  "no", NULL, 0),
	/* security = ads: NTLM logons of users of other domains are handed
	 * to winbindd too (smbd/auth/winbind.c) */
	P(LP_ALLOW_TRUSTED_DOMAINS, "allow trusted domains", B, G, "yes", NULL,
	  0),
	P(LP_AVAILABLE, "available", B, S, "yes", NULL, 0),
	P(LP_BIND_INTERFACES_ONLY, "bind interfaces only", B, G, "no", NULL, 0),
	P(LP_BROWSEABLE, "browseable", B, S, "yes", NULL, 0),
	P(LP_CACHE_DIRECTORY, "cache directory", STR, G,
	  LOCALSTATEDIR "/cache/samba", NULL, 0),
	P(LP_CASE_SENSITIVE, "case sensitive", E, S, "auto",
	  case_sensitive_vals, 0),
	/* no: CHANGE_NOTIFY is answered NOT_IMPLEMENTED (smb2_notify.c) */
	P(LP_CHANGE_NOTIFY, "change notify", B, G, "yes", NULL, 0),
	/* Clustering on CTDB (locking/ctdb/): empty socket = ctdb's own
	 * default; timeouts in milliseconds, 0 = Samba's "no limit". */
	P(LP_CLUSTER_ADDRESSES, "cluster addresses", L, G, NULL, NULL, C),
	P(LP_CLUSTERING, "clustering", B, G, "no", NULL, 0),
	P(LP_COMMENT, "comment", STR, S, NULL, NULL, SUB),
	P(LP_CREATE_MASK, "create mask", O, S, "0744", NULL, 0),
	P(LP_CSC_POLICY, "csc policy", E, S, "manual", csc_policy_vals, 0),
	P(LP_CTDB_LOCKTIME_WARN_THRESHOLD, "ctdb locktime warn threshold", I,
	  G, "0", NULL, 0),
	P(LP_CTDB_TIMEOUT, "ctdb timeout", I, G, "0", NULL, 0),
	P(LP_CTDBD_SOCKET, "ctdbd socket", STR, G, NULL, NULL, 0),
	P(LP_DEADTIME, "deadtime", I, G, "0", NULL, 0),
	P(LP_DEDICATED_KEYTAB_FILE, "dedicated keytab file", STR, G, NULL,
	  NULL, 0),
	P(LP_DEFAULT_CASE, "default case", E, S, "lower", default_case_vals,
	  0),
	P(LP_DFREE_COMMAND, "dfree command", STR, S, NULL, NULL, C),
	P(LP_DIRECTORY_MASK, "directory mask", O, S, "0755", NULL, 0),
	P(LP_DISABLE_NETBIOS, "disable netbios", B, G, "no", NULL, C),
	P(LP_DISABLE_SPOOLSS, "disable spoolss", B, G, "no", NULL, C),
	P(LP_DOS_CHARSET, "dos charset", STR, G, "CP850", NULL, C),
	P(LP_DURABLE_HANDLES, "durable handles", B, S, "yes", NULL, 0),
	P(LP_EA_SUPPORT, "ea support", B, S, "yes", NULL, 0),
	P(LP_FOLLOW_SYMLINKS, "follow symlinks", B, S, "yes", NULL, 0),
	P(LP_FORCE_CREATE_MODE, "force create mode", O, S, "0000", NULL, 0),
	P(LP_FORCE_DIRECTORY_MODE, "force directory mode", O, S, "0000", NULL,
	  0),
	P(LP_FORCE_GROUP, "force group", STR, S, NULL, NULL, 0),
	P(LP_FORCE_USER, "force user", STR, S, NULL, NULL, 0),
	P(LP_FSTYPE, "fstype", STR, S, "NTFS", NULL, 0),
	P(LP_GUEST_ACCOUNT, "guest account", STR, G, "nobody", NULL, 0),
	P(LP_GUEST_OK, "guest ok", B, S, "no", NULL, 0),
	P(LP_GUEST_ONLY, "guest only", B, S, "no", NULL, 0),
	P(LP_HIDE_DOT_FILES, "hide dot files", B, S, "yes", NULL, 0),
	P(LP_HIDE_FILES, "hide files", STR, S, NULL, NULL, 0),
	P(LP_HOST_MSDFS, "host msdfs", B, G, "yes", NULL, 0),
	P(LP_HOSTS_ALLOW, "hosts allow", L, S, NULL, NULL, 0),
	P(LP_HOSTS_DENY, "hosts deny", L, S, NULL, NULL, 0),
	/* Read by conf/parse.c where it stands; the value is the last
	 * include of the section, kept for testparm's dump as Samba's
	 * testparm shows it. */
	P(LP_INCLUDE, "include", STR, S, NULL, NULL, 0),
	P(LP_INHERIT_ACLS, "inherit acls", B, S, "no", NULL, C),
	P(LP_INHERIT_PERMISSIONS, "inherit permissions", B, S, "no", NULL, 0),
	P(LP_INTERFACES, "interfaces", L, G, NULL, NULL, 0),
	P(LP_INVALID_USERS, "invalid users", L, S, NULL, NULL, 0),
	P(LP_KERBEROS_METHOD, "kerberos method", E, G, "default",
	  kerberos_method_vals, 0),
	P(LP_KERNEL_OPLOCKS, "kernel oplocks", B, S, "no", NULL, C),
	P(LP_KERNEL_SHARE_MODES, "kernel share modes", B, S, "no", NULL, C),
	P(LP_LANMAN_AUTH, "lanman auth", B, G, "no", NULL, C),
	P(LP_LEVEL2_OPLOCKS, "level2 oplocks", B, S, "yes", NULL, 0),
	P(LP_LOAD_PRINTERS, "load printers", B, G, "yes", NULL, C),
	P(LP_LOCK_DIRECTORY, "lock directory", STR, G, RUNSTATEDIR "/samba",
	  NULL, 0),
	P(LP_LOG_FILE, "log file", STR, G, NULL, NULL, SUB),
	P(LP_LOG_LEVEL, "log level", CONF_T_LOGLEVEL, G, "0", NULL, 0),
	P(LP_MANGLED_NAMES, "mangled names", E, S, "illegal",
	  mangled_names_vals, 0),
	P(LP_MAP_ARCHIVE, "map archive", B, S, "yes", NULL, 0),
	P(LP_MAP_HIDDEN, "map hidden", B, S, "no", NULL, 0),
	P(LP_MAP_READONLY, "map readonly", E, S, "no", map_readonly_vals, 0),
	P(LP_MAP_SYSTEM, "map system", B, S, "no", NULL, 0),
	P(LP_MAP_TO_GUEST, "map to guest", E, G, "Never", map_to_guest_vals,
	  0),
	P(LP_MAX_CONNECTIONS, "max connections", I, S, "0", NULL, 0),
	P(LP_MAX_LOG_SIZE, "max log size", I, G, "5000", NULL, 0),
	P(LP_MAX_OPEN_FILES, "max open files", I, G, "16384", NULL, 0),
	P(LP_MAX_SMBD_PROCESSES, "max smbd processes", I, G, "0", NULL, 0),
	P(LP_MAX_XMIT, "max xmit", I, G, "16644", NULL, C),
	P(LP_MSDFS_PROXY, "msdfs proxy", STR, S, NULL, NULL, SUB),
	P(LP_MSDFS_ROOT, "msdfs root", B, S, "no", NULL, 0),
	P(LP_MSDFS_SHUFFLE_REFERRALS, "msdfs shuffle referrals", B, S, "no",
	  NULL, 0),
	P(LP_NETBIOS_NAME, "netbios name", CONF_T_USTRING, G, NULL, NULL, 0),
	P(LP_NT_ACL_SUPPORT, "nt acl support", B, S, "yes", NULL, 0),
	P(LP_NTLM_AUTH, "ntlm auth", E, G, "ntlmv2-only", ntlm_auth_vals, 0),
	P(LP_OBEY_PAM_RESTRICTIONS, "obey pam restrictions", B, G, "no", NULL,
	  0),
	P(LP_OPLOCKS, "oplocks", B, S, "yes", NULL, 0),
	P(LP_PANIC_ACTION, "panic action", STR, G, NULL, NULL, 0),
	P(LP_PASSDB_BACKEND, "passdb backend", STR, G, "tdbsam", NULL, 0),
	P(LP_PATH, "path", STR, S, NULL, NULL, SUB),
	P(LP_PID_DIRECTORY, "pid directory", STR, G, RUNSTATEDIR "/samba", NULL,
	  0),
	P(LP_POSIX_LOCKING, "posix locking", B, S, "yes", NULL, 0),
	P(LP_PRESERVE_CASE, "preserve case", B, S, "yes", NULL, 0),
	/* No print server: a printable share is listed as a print queue
	 * (srvsvc) and refuses tree connects. */
	P(LP_PRINTABLE, "printable", B, S, "no", NULL, 0),
	P(LP_PRINTCAP_NAME, "printcap name", STR, G, NULL, NULL, C),
	P(LP_PRINTING, "printing", E, S, "cups", printing_vals, C),
	P(LP_PRIVATE_DIR, "private dir", STR, G,
	  LOCALSTATEDIR "/lib/samba/private", NULL, 0),
	P(LP_READ_LIST, "read list", L, S, NULL, NULL, 0),
	P(LP_READ_ONLY, "read only", B, S, "yes", NULL, 0),
	/* The DNS domain in NTLMSSP's target info (MS-NLMP 2.2.2.1). */
	P(LP_REALM, "realm", CONF_T_USTRING, G, NULL, NULL, 0),
	P(LP_RESET_ON_ZERO_VC, "reset on zero vc", B, G, "no", NULL, C),
	P(LP_RESTRICT_ANONYMOUS, "restrict anonymous", I, G, "0", NULL, 0),
	P(LP_SECURITY, "security", E, G, "auto", security_vals, 0),
	P(LP_SERVER_MAX_PROTOCOL, "server max protocol", E, G, "SMB3",
	  proto_max_vals, 0),
	P(LP_SERVER_MIN_PROTOCOL, "server min protocol", E, G, "SMB2_02",
	  proto_min_vals, 0),
	P(LP_SERVER_MULTI_CHANNEL_SUPPORT, "server multi channel support", B,
	  G, "yes", NULL, 0),
	P(LP_SERVER_ROLE, "server role", E, G, "auto", server_role_vals, 0),
	P(LP_SERVER_SIGNING, "server signing", E, G, "default", signing_vals,
	  0),
	P(LP_SERVER_SMB_ENCRYPT, "server smb encrypt", E, S, "default",
	  encrypt_vals, 0),
	P(LP_SERVER_SMB3_ENCRYPTION_ALGORITHMS,
	  "server smb3 encryption algorithms", L, G,
	  "AES-128-GCM, AES-128-CCM, AES-256-GCM, AES-256-CCM", cipher_vals, 0),
	P(LP_SERVER_SMB3_SIGNING_ALGORITHMS, "server smb3 signing algorithms",
	  L, G, "AES-128-GMAC, AES-128-CMAC, HMAC-SHA256", sign_algo_vals, 0),
	P(LP_SERVER_STRING, "server string", STR, G, "smbd-ng %v", NULL, SUB),
	P(LP_SHORT_PRESERVE_CASE, "short preserve case", B, S, "yes", NULL, 0),
	P(LP_SMB_PORTS, "smb ports", L, G, "445 139", NULL, 0),
	P(LP_SMB2_LEASES, "smb2 leases", B, G, "yes", NULL, 0),
	P(LP_SMB3_COMPRESSION, "smb3 compression", E, S, "auto",
	  smb3_compression_vals, 0),
	P(LP_SMB3_DIRECTORY_LEASES, "smb3 directory leases", B, G, "yes", NULL,
	  0),
	/* smbd/conn/auth_limit.h */
	P(LP_SMBD_AUTH_RATE_LIMITER_BUDGET, "smbd auth rate limiter budget",
	  I, G, "50", NULL, 0),
	P(LP_SMBD_AUTH_RATE_LIMITER_DELAY, "smbd auth rate limiter delay", I,
	  G, "2000", NULL, 0),
	P(LP_SMBD_IO_BACKEND, "smbd io backend", E, G, "io_uring",
	  io_backend_vals, 0),
	P(LP_SMBD_IRQ_AFFINITY, "smbd irq affinity", B, G, "no", NULL, 0),
	P(LP_SMBD_IRQ_INTERFACES, "smbd irq interfaces", L, G, NULL, NULL, 0),
	P(LP_SMBD_LOGON_TIMEOUT, "smbd logon timeout", I, G, "60", NULL, 0),
	P(LP_SMBD_MAX_CLIENTS_PER_HOST, "smbd max clients per host", I, G, "0",
	  NULL, 0),
	P(LP_SMBD_MAX_DECOMPRESSED_PER_CONNECTION,
	  "smbd max decompressed per connection", I, G, "64", NULL, 0),
	P(LP_SMBD_MAX_DECOMPRESSED_PER_WORKER,
	  "smbd max decompressed per worker", I, G, "256", NULL, 0),
	P(LP_SMBD_METRICS, "smbd metrics", B, G, "yes", NULL, 0),
	P(LP_SMBD_METRICS_LISTEN, "smbd metrics listen", STR, G, NULL, NULL,
	  0),
	P(LP_SMBD_POOL_MAX_THREADS, "smbd pool max threads", I, G, "64", NULL,
	  0),
	P(LP_SMBD_POOL_THREADS_PER_SHARE, "smbd pool threads per share", I, S,
	  "16", NULL, 0),
	P(LP_SMBD_REUSEPORT_STEERING, "smbd reuseport steering", B, G, "yes",
	  NULL, 0),
	P(LP_SMBD_SPREAD_CONNECTIONS, "smbd spread connections", B, G, "no",
	  NULL, 0),
	P(LP_SMBD_WATCHDOG_TIMEOUT, "smbd watchdog timeout", I, G, "30", NULL,
	  0),
	P(LP_SMBD_WORKERS, "smbd workers", I, G, "0", NULL, 0),
	P(LP_SOCKET_OPTIONS, "socket options", STR, G, "TCP_NODELAY", NULL, C),
	P(LP_STATE_DIRECTORY, "state directory", STR, G,
	  LOCALSTATEDIR "/lib/samba", NULL, 0),
	P(LP_STORE_DOS_ATTRIBUTES, "store dos attributes", B, S, "yes", NULL,
	  0),
	P(LP_STRICT_LOCKING, "strict locking", E, S, "Auto",
	  strict_locking_vals, 0),
	P(LP_STRICT_SYNC, "strict sync", B, S, "yes", NULL, 0),
	P(LP_SYNC_ALWAYS, "sync always", B, S, "no", NULL, 0),
	/* winbindd's: the passwd entries of domain users come from it */
	P(LP_TEMPLATE_HOMEDIR, "template homedir", STR, G, "/home/%D/%U", NULL,
	  0),
	P(LP_TEMPLATE_SHELL, "template shell", STR, G, "/bin/false", NULL, 0),
	P(LP_UNIX_CHARSET, "unix charset", STR, G, "UTF-8", NULL, C),
	/* Samba's default is no; ours is yes: signed, encrypted and
	 * compounded replies fall back to a copy by themselves. */
	P(LP_USE_SENDFILE, "use sendfile", B, S, "yes", NULL, 0),
	P(LP_USERNAME_MAP, "username map", STR, G, NULL, NULL, 0),
	P(LP_USERNAME_MAP_CACHE_TIME, "username map cache time", I, G, "0",
	  NULL, 0),
	P(LP_USERNAME_MAP_SCRIPT, "username map script", STR, G, NULL, NULL,
	  0),
	P(LP_VALID_USERS, "valid users", L, S, NULL, NULL, 0),
	P(LP_VETO_FILES, "veto files", STR, S, NULL, NULL, 0),
	P(LP_VFS_OBJECTS, "vfs objects", L, S, NULL, NULL, 0),
	P(LP_VOLUME, "volume", STR, S, NULL, NULL, 0),
	P(LP_WIDE_LINKS, "wide links", B, S, "no", NULL, 0),
	/* winbindd's too; smbd reads them to split DOMAIN\\user names */
	P(LP_WINBIND_SEPARATOR, "winbind separator", STR, G, "\\", NULL, 0),
	P(LP_WINBIND_USE_DEFAULT_DOMAIN, "winbind use default domain", B, G,
	  "no", NULL, 0),
	P(LP_WORKGROUP, "workgroup", CONF_T_USTRING, G, "WORKGROUP", NULL, 0),
	P(LP_WRITE_LIST, "write list", L, S, NULL, NULL, 0),
};

/* Samba's other spellings (smb.conf(5) "Synonym" lines). */
const struct conf_synonym conf_synonyms[] = {
	{"writeable", LP_READ_ONLY, true},
	{"writable", LP_READ_ONLY, true},
	{"write ok", LP_READ_ONLY, true},
	{"directory", LP_PATH, false},
	{"public", LP_GUEST_OK, false},
	{"only guest", LP_GUEST_ONLY, false},
	{"browsable", LP_BROWSEABLE, false},
	{"allow hosts", LP_HOSTS_ALLOW, false},
	{"deny hosts", LP_HOSTS_DENY, false},
	{"debuglevel", LP_LOG_LEVEL, false},
	{"max protocol", LP_SERVER_MAX_PROTOCOL, false},
	{"protocol", LP_SERVER_MAX_PROTOCOL, false},
	{"min protocol", LP_SERVER_MIN_PROTOCOL, false},
	{"create mode", LP_CREATE_MASK, false},
	{"directory mode", LP_DIRECTORY_MASK, false},
	{"smb encrypt", LP_SERVER_SMB_ENCRYPT, false},
	{"group", LP_FORCE_GROUP, false},
	{"print ok", LP_PRINTABLE, false},
	{"printcap", LP_PRINTCAP_NAME, false},
	{"lock dir", LP_LOCK_DIRECTORY, false},
	{"private directory", LP_PRIVATE_DIR, false},
	{"casesignames", LP_CASE_SENSITIVE, false},
	{"vfs object", LP_VFS_OBJECTS, false},
};

const size_t conf_num_synonyms =
	sizeof(conf_synonyms) / sizeof(conf_synonyms[0]);

bool conf_samba_knows(const char *name)
{
	size_t i;

	for (i = 0; i < conf_num_samba_params; i++) {
		if (conf_name_eq(name, conf_samba_params[i])) {
			return true;
		}
	}
	return false;
}

bool conf_name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t' || *a == '_') {
			a++;
		}
		while (*b == ' ' || *b == '\t' || *b == '_') {
			b++;
		}
		if (*a == '\0' || *b == '\0') {
			return *a == *b;
		}
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
		a++;
		b++;
	}
}

int conf_find_param(const char *name, bool *inverse)
{
	size_t i;

	*inverse = false;
	for (i = 0; i < LP__COUNT; i++) {
		if (conf_name_eq(conf_params[i].name, name)) {
			return (int)i;
		}
	}
	for (i = 0; i < conf_num_synonyms; i++) {
		if (conf_name_eq(conf_synonyms[i].name, name)) {
			*inverse = conf_synonyms[i].inverse;
			return (int)conf_synonyms[i].id;
		}
	}
	return -1;
}

/* Case-insensitive, whitespace-insensitive: "Bad User" == "baduser". */
static bool enum_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t') {
			a++;
		}
		while (*b == ' ' || *b == '\t') {
			b++;
		}
		if (*a == '\0' || *b == '\0') {
			return *a == *b;
		}
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
		a++;
		b++;
	}
}

const struct conf_enum_val *conf_enum_find(const struct conf_enum_val *tab,
					   const char *value)
{
	for (; tab != NULL && tab->name != NULL; tab++) {
		if (enum_eq(tab->name, value)) {
			return tab;
		}
	}
	return NULL;
}

const char *conf_enum_name(const struct conf_enum_val *tab, int value)
{
	for (; tab != NULL && tab->name != NULL; tab++) {
		if (tab->value == value) {
			return tab->name;
		}
	}
	return NULL;
}

const char *conf_type_name(enum conf_type t)
{
	switch (t) {
	case CONF_T_BOOL:
		return "BOOL";
	case CONF_T_INT:
		return "INTEGER";
	case CONF_T_OCTAL:
		return "OCTAL";
	case CONF_T_STRING:
		return "STRING";
	case CONF_T_USTRING:
		return "USTRING";
	case CONF_T_LIST:
		return "LIST";
	case CONF_T_ENUM:
		return "ENUM";
	case CONF_T_LOGLEVEL:
		return "LOGLEVEL";
	}
	return "?";
}
