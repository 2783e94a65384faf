# smbd/: the daemon, one room per subdirectory (each with its own
# local.mk).  Everything but main() is in libsmbd.a so unit tests and
# fuzz targets link the same code.  Here: the base room, the types and
# constants every room shares.
libsmbd_a_SOURCES += smbd/smbd.h smbd/smb2.h
