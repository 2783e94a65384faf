/*
 * snapper's info.xml, the one thing vfs_snapper reads from it: the
 * time the snapshot was taken (issue 15 item 7).  A pure function with
 * no I/O, so unit tests and a fuzzer drive it directly.
 *
 * snapper (snapper(8), its libsnapper writes the file) keeps beside
 * each snapshot SUBVOL/.snapshots/N/snapshot a file N/info.xml such as
 *
 *   <?xml version="1.0"?>
 *   <snapshot>
 *     <type>single</type>
 *     <num>1</num>
 *     <date>2024-01-02 03:04:05</date>
 *     <description>before update</description>
 *     <userdata><key>important</key><value>yes</value></userdata>
 *   </snapshot>
 *
 * with the date in UTC.  This is not a general XML parser: it checks
 * that the document is a well-nested tree of elements under one root
 * <snapshot> (end tags matching, at most VFS_SNAPPER_INFO_DEPTH deep,
 * comments and processing instructions skipped, attributes skipped,
 * no DOCTYPE or CDATA: no entity can expand) and reads the text of the
 * one <date> child of the root.  Everything else is ignored.  Input
 * over VFS_SNAPPER_INFO_MAX bytes is refused, so the work is bounded by
 * that size.
 */
#ifndef VFS_SNAPPER_INFO_H
#define VFS_SNAPPER_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* snapper writes a few hundred bytes; userdata may add some. */
#define VFS_SNAPPER_INFO_MAX 65536
/* snapshot > userdata > key is the deepest snapper writes (3). */
#define VFS_SNAPPER_INFO_DEPTH 16

/* The time (seconds since 1970, UTC) of the <date> element, written
 * "YYYY-MM-DD hh:mm:ss" (XML white space around it allowed), of the
 * info.xml in buf[0..len); false when the document is malformed, has
 * no such date, or has two. */
bool vfs_snapper_info_date(const char *buf, size_t len, int64_t *t);

#endif
