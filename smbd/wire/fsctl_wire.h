/*
 * The wire structures of the file-system FSCTLs of SMB2 IOCTL (MS-SMB2
 * 2.2.31.1, 2.2.32.1-2.2.32.5; MS-FSCC 2.3): pure parsers and builders,
 * no file I/O, so unit tests and a fuzzer drive them directly.  The
 * handlers (smb2_copychunk.c, smb2_fsctl_fs.c, smb2_fsctl_net.c) do the
 * I/O around them.
 */
#ifndef SMBD_FSCTL_WIRE_H
#define SMBD_FSCTL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "lib/ntstatus.h"
#include "lib/wire.h"

/* Control codes (MS-FSCC 2.3, MS-SMB2 2.2.31). */
#define FSCTL_GET_COMPRESSION 0x0009003C
#define FSCTL_GET_OBJECT_ID 0x0009009C
#define FSCTL_CREATE_OR_GET_OBJECT_ID 0x000900C0
#define FSCTL_SET_SPARSE 0x000900C4
#define FSCTL_QUERY_ALLOCATED_RANGES 0x000940CF
#define FSCTL_SET_ZERO_DATA 0x000980C8
#define FSCTL_SET_COMPRESSION 0x0009C040
#define FSCTL_SRV_REQUEST_RESUME_KEY 0x00140078
#define FSCTL_LMR_REQUEST_RESILIENCY 0x001401D4
#define FSCTL_QUERY_NETWORK_INTERFACE_INFO 0x001401FC
#define FSCTL_SRV_COPYCHUNK 0x001440F2
#define FSCTL_SRV_COPYCHUNK_WRITE 0x001480F2
#define FSCTL_SRV_ENUMERATE_SNAPSHOTS 0x00144064

/*
 * Server-side copy limits: MS-SMB2 3.3.3 ServerSideCopyMaxNumberofChunks,
 * ServerSideCopyMaxChunkSize, ServerSideCopyMaxDataSize, at the Windows
 * defaults (<306>), which Samba uses too.  A request over any of them
 * gets STATUS_INVALID_PARAMETER with these three in the response.
 */
#define FSCTL_COPYCHUNK_MAX_CHUNKS 256
#define FSCTL_COPYCHUNK_MAX_CHUNK_LEN (1024 * 1024)
#define FSCTL_COPYCHUNK_MAX_TOTAL (16 * 1024 * 1024)

/* 2.2.31.1.1 SRV_COPYCHUNK */
struct fsctl_chunk {
	uint64_t src_off;
	uint64_t dst_off;
	uint32_t len;
};

/* 2.2.31.1 SRV_COPYCHUNK_COPY */
#define FSCTL_RESUME_KEY_LEN 24
struct fsctl_copychunk {
	uint8_t key[FSCTL_RESUME_KEY_LEN];
	uint32_t count;
	/* count entries, or NULL when count is over the limit (the request
	 * is refused before its array is looked at) */
	struct fsctl_chunk *chunks;
};

/*
 * SRV_COPYCHUNK_COPY from an input buffer.  NT_STATUS_INVALID_PARAMETER
 * when shorter than its 32-byte header or than the chunk array it
 * announces; chunks beyond the header's count are ignored.  Allocates
 * the array on mem_ctx (never more than FSCTL_COPYCHUNK_MAX_CHUNKS).
 */
NTSTATUS fsctl_copychunk_parse(TALLOC_CTX *mem_ctx, const uint8_t *buf,
			       size_t len, struct fsctl_copychunk *out);
/* 3.3.5.15.6: within the limits above, and no chunk of length 0. */
bool fsctl_copychunk_limits_ok(const struct fsctl_copychunk *cc);

/* 2.2.32.1 SRV_COPYCHUNK_RESPONSE (12 bytes). */
void fsctl_copychunk_rsp_push(struct wire_buf *b, uint32_t chunks_written,
			      uint32_t chunk_bytes_written,
			      uint32_t total_bytes_written);
#define FSCTL_COPYCHUNK_RSP_LEN 12

/*
 * Our resume key (2.2.32.3, opaque to the client): the FileId's volatile
 * and persistent halves, then a random tag the open got when the key
 * was first asked for, so keys cannot be made up from FileIds alone.
 */
struct fsctl_resume_key {
	uint64_t fid_volatile;
	uint64_t fid_persistent;
	uint64_t tag;
};
void fsctl_resume_key_encode(const struct fsctl_resume_key *k,
			     uint8_t out[FSCTL_RESUME_KEY_LEN]);
void fsctl_resume_key_decode(const uint8_t in[FSCTL_RESUME_KEY_LEN],
			     struct fsctl_resume_key *k);
/*
 * 2.2.32.3 SRV_REQUEST_RESUME_KEY: the key, ContextLength 0 and, when
 * max_out has room, the 4 zero bytes of Context Windows sends (<373>;
 * Samba's client reads 32 bytes).  NT_STATUS_INVALID_PARAMETER when
 * max_out cannot hold the key and ContextLength.
 */
NTSTATUS fsctl_resume_key_rsp_push(struct wire_buf *b, const uint8_t *key,
				   uint32_t max_out);

/*
 * MS-FSCC 2.3.41 FILE_ALLOCATED_RANGE_BUFFER as the input of
 * FSCTL_QUERY_ALLOCATED_RANGES: NT_STATUS_INVALID_PARAMETER when shorter
 * than 16 bytes, when either field is negative as a LONGLONG, or when
 * offset + length overflows (smbtorture sparse_qar_overflow).  Extra
 * bytes are ignored (sparse_qar_malformed).
 */
NTSTATUS fsctl_qar_parse(const uint8_t *buf, size_t len, uint64_t *off,
			 uint64_t *length);
/* One FILE_ALLOCATED_RANGE_BUFFER of the output. */
void fsctl_qar_push(struct wire_buf *b, uint64_t off, uint64_t length);
#define FSCTL_QAR_ENTRY_LEN 16

/*
 * MS-FSCC 2.3.69 FILE_ZERO_DATA_INFORMATION: NT_STATUS_INVALID_PARAMETER
 * when shorter than 16 bytes, negative, or FileOffset past
 * BeyondFinalZero (MS-FSA 2.1.5.10.37).
 */
NTSTATUS fsctl_zero_data_parse(const uint8_t *buf, size_t len, uint64_t *off,
			       uint64_t *beyond_final_zero);

/* MS-FSCC 2.3.64 FILE_SET_SPARSE_BUFFER: no buffer means TRUE (2.3.64:
 * "If no buffer is provided, the file is made sparse"); more than one
 * byte is accepted as Windows does (sparse_set_oversize). */
bool fsctl_set_sparse_parse(const uint8_t *buf, size_t len);

/*
 * MS-SMB2 2.2.31.3 NETWORK_RESILIENCY_REQUEST (Timeout in milliseconds,
 * then 4 reserved bytes) with the checks of 3.3.5.15.9:
 * NT_STATUS_INVALID_PARAMETER when shorter than its 8 bytes or when the
 * Timeout in whole seconds is greater than max_ms in whole seconds (the
 * spec compares seconds: 300999 ms passes a 300000 ms maximum).  A
 * Timeout of 0 leaves the choice to the server: *timeout_ms = def_ms.
 * Bytes past the 8 are ignored.
 */
#define FSCTL_RESILIENCY_REQ_LEN 8
NTSTATUS fsctl_resiliency_parse(const uint8_t *buf, size_t len,
				uint32_t max_ms, uint32_t def_ms,
				uint32_t *timeout_ms);

/* MS-FSCC 2.3.67 FILE_COMPRESSION state (USHORT). */
#define FSCTL_COMPRESSION_FORMAT_NONE 0
#define FSCTL_COMPRESSION_FORMAT_DEFAULT 1
#define FSCTL_COMPRESSION_FORMAT_LZNT1 2
NTSTATUS fsctl_compression_parse(const uint8_t *buf, size_t len,
				 uint16_t *format);

/*
 * MS-FSCC 2.1.3.1 FILE_OBJECTID_BUFFER, type 1 (64 bytes): an ObjectId
 * stable for the file (its device and inode numbers), BirthVolumeId the
 * volume's id, BirthObjectId the ObjectId, DomainId zero.
 */
#define FSCTL_OBJECTID_LEN 64
void fsctl_object_id_push(struct wire_buf *b, uint64_t dev, uint64_t ino,
			  const uint8_t volume_id[16]);

/*
 * MS-SMB2 2.2.32.5 NETWORK_INTERFACE_INFO entries, 152 bytes each, Next
 * chained (0 in the last).  family is AF_INET or AF_INET6; addr holds 4
 * or 16 bytes.  link_speed in bits per second.
 */
#define FSCTL_NET_IFACE_LEN 152
#define FSCTL_NET_IFACE_RSS_CAPABLE 0x00000001
struct fsctl_net_iface {
	uint32_t if_index;
	uint32_t capability;
	uint64_t link_speed;
	int family;
	uint8_t addr[16];
	uint32_t scope_id;	/* IPv6 */
};
void fsctl_net_iface_push(struct wire_buf *b, const struct fsctl_net_iface *v,
			  size_t n);

/*
 * 2.2.32.2 SRV_SNAPSHOT_ARRAY for n @GMT tokens (24 ASCII characters
 * each), as 3.3.5.15.1 sizes it for MaxOutputResponse max_out:
 * SnapShotArraySize is the tokens as NUL-terminated UTF-16 plus the
 * final NUL (n * 50 + 2).  When the whole array fits, all of it; else
 * (the client's first, size-only query, 16 bytes as Windows and
 * smbclient send it) NumberOfSnapShotsReturned 0 and the size needed,
 * padded to the 16 bytes the client asked for, as Samba answers.
 * INVALID_PARAMETER when max_out is under 16 (3.3.5.15.1) or a token
 * is not 24 characters.
 */
#define FSCTL_SNAPSHOT_MIN_OUT 16
#define FSCTL_SNAPSHOT_TOKEN_CHARS 24
NTSTATUS fsctl_snapshot_array_push(struct wire_buf *b,
				   const char *const *tokens, uint32_t n,
				   uint32_t max_out);

#endif
