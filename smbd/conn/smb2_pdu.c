/*
 * The first layer of checks every SMB2 request passes (STYLE.md habit 3):
 * compound splitting and a table of body sizes, variable-buffer offsets and
 * lengths per command, all summed in 64-bit arithmetic.  A handler can then
 * trust that the fields named here point inside its PDU; it still checks
 * its own command-specific rules.
 */
#include "smbd/conn/smb2_server.h"

struct smb2_buf_rule {
	uint8_t off_pos;	/* offset field position in the body */
	uint8_t off_width;	/* 2 or 4; 0 = no buffer */
	uint8_t len_pos;
	uint8_t len_width;
};

struct smb2_pdu_rule {
	uint16_t struct_size;	/* MS-SMB2 2.2.x request StructureSize */
	uint16_t alt_size;	/* a second valid size (OPLOCK_BREAK) */
	struct smb2_buf_rule buf[2];
	/* Arrays counted by a field: NEGOTIATE dialects, LOCK elements. */
	uint8_t count_pos;
	uint8_t elem_start;
	uint8_t elem_size;	/* 0 = none */
};

static const struct smb2_pdu_rule smb2_pdu_rules[SMB2_OP_MAX] = {
	/* 2.2.3: DialectCount at 2, Dialects at 36 */
	[SMB2_OP_NEGPROT] = {36, 0, {{0}}, 2, 36, 2},
	/* 2.2.5: SecurityBufferOffset/Length */
	[SMB2_OP_SESSSETUP] = {25, 0, {{12, 2, 14, 2}}, 0, 0, 0},
	[SMB2_OP_LOGOFF] = {4, 0, {{0}}, 0, 0, 0},
	/* 2.2.9: PathOffset/PathLength */
	[SMB2_OP_TCON] = {9, 0, {{4, 2, 6, 2}}, 0, 0, 0},
	[SMB2_OP_TDIS] = {4, 0, {{0}}, 0, 0, 0},
	/* 2.2.13: NameOffset/Length, CreateContextsOffset/Length */
	[SMB2_OP_CREATE] = {57, 0, {{44, 2, 46, 2}, {48, 4, 52, 4}}, 0, 0, 0},
	[SMB2_OP_CLOSE] = {24, 0, {{0}}, 0, 0, 0},
	[SMB2_OP_FLUSH] = {24, 0, {{0}}, 0, 0, 0},
	/* 2.2.19: ReadChannelInfoOffset/Length */
	[SMB2_OP_READ] = {49, 0, {{44, 2, 46, 2}}, 0, 0, 0},
	/* 2.2.21: DataOffset/Length, WriteChannelInfoOffset/Length */
	[SMB2_OP_WRITE] = {49, 0, {{2, 2, 4, 4}, {40, 2, 42, 2}}, 0, 0, 0},
	/* 2.2.26: LockCount at 2, Locks at 24, 24 bytes each */
	[SMB2_OP_LOCK] = {48, 0, {{0}}, 2, 24, 24},
	/* 2.2.31: InputOffset/InputCount, OutputOffset/OutputCount */
	[SMB2_OP_IOCTL] = {57, 0, {{24, 4, 28, 4}, {36, 4, 40, 4}}, 0, 0, 0},
	[SMB2_OP_CANCEL] = {4, 0, {{0}}, 0, 0, 0},
	[SMB2_OP_KEEPALIVE] = {4, 0, {{0}}, 0, 0, 0},
	/* 2.2.33: FileNameOffset/Length */
	[SMB2_OP_QUERY_DIRECTORY] = {33, 0, {{24, 2, 26, 2}}, 0, 0, 0},
	[SMB2_OP_NOTIFY] = {32, 0, {{0}}, 0, 0, 0},
	/* 2.2.37: InputBufferOffset/InputBufferLength */
	[SMB2_OP_GETINFO] = {41, 0, {{8, 2, 12, 4}}, 0, 0, 0},
	/* 2.2.39: BufferOffset at 8, BufferLength at 4 */
	[SMB2_OP_SETINFO] = {33, 0, {{8, 2, 4, 4}}, 0, 0, 0},
	/* 2.2.24.1 oplock break ack (24) or 2.2.24.2 lease break ack (36) */
	[SMB2_OP_BREAK] = {24, 36, {{0}}, 0, 0, 0},
};

static uint32_t smb2_field(const uint8_t *body, uint8_t pos, uint8_t width)
{
	return width == 2 ? le16(body + pos) : le32(body + pos);
}

/*
 * The table's checks of one request, and (extent not NULL) the bytes up
 * to the end of the last thing the table names: the fixed part with the
 * one byte of an odd StructureSize, the variable buffers, the elements.
 */
static NTSTATUS pdu_walk(uint16_t opcode, const uint8_t *pdu, size_t len,
			 uint64_t *extent)
{
	const struct smb2_pdu_rule *r;
	const uint8_t *body = pdu + SMB2_HDR_LEN;
	size_t body_len, fixed;
	uint64_t end;
	uint16_t ss;
	int i;

	if (opcode >= SMB2_OP_MAX || len < SMB2_HDR_LEN + 2) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	r = &smb2_pdu_rules[opcode];
	body_len = len - SMB2_HDR_LEN;
	ss = le16(body);
	if (ss != r->struct_size && (r->alt_size == 0 || ss != r->alt_size)) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	/* An odd StructureSize counts one byte of the variable buffer. */
	fixed = ss & ~1u;
	if (body_len < fixed) {
		return NT_STATUS_INVALID_PARAMETER;
	}
	end = SMB2_HDR_LEN + (uint64_t)ss;
	for (i = 0; i < 2; i++) {
		const struct smb2_buf_rule *b = &r->buf[i];
		uint64_t off, blen;

		if (b->off_width == 0) {
			continue;
		}
		off = smb2_field(body, b->off_pos, b->off_width);
		blen = smb2_field(body, b->len_pos, b->len_width);
		if (blen == 0) {
			continue;
		}
		/* Offsets count from the start of the SMB2 header. */
		if (off < SMB2_HDR_LEN + fixed ||
		    !wire_range_ok(off, blen, len)) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (off + blen > end) {
			end = off + blen;
		}
	}
	if (r->elem_size != 0) {
		uint64_t count = le16(body + r->count_pos);
		uint64_t elems = (uint64_t)r->elem_start + count * r->elem_size;

		if (elems > body_len) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (SMB2_HDR_LEN + elems > end) {
			end = SMB2_HDR_LEN + elems;
		}
	}
	if (extent != NULL) {
		*extent = end;
	}
	return NT_STATUS_OK;
}

NTSTATUS smb2_pdu_check(uint16_t opcode, const uint8_t *pdu, size_t len)
{
	return pdu_walk(opcode, pdu, len, NULL);
}

size_t smb2_pdu_extent(uint16_t opcode, const uint8_t *pdu, size_t len)
{
	uint64_t end;

	/* NEGOTIATE's contexts lie past the table's fields; the preauth
	 * hash (3.3.5.5) covers a SESSION_SETUP whole. */
	if (opcode == SMB2_OP_NEGPROT || opcode == SMB2_OP_SESSSETUP ||
	    !NT_STATUS_IS_OK(pdu_walk(opcode, pdu, len, &end))) {
		return len;
	}
	return end < len ? (size_t)end : len;
}

/*
 * MS-SMB2 3.3.5.2.7: NextCommand gives the offset of the next header; it
 * must be 8-byte aligned and inside the frame.  The last request has 0.
 */
NTSTATUS smb2_pdu_split(const uint8_t *frame, size_t len, size_t *offs,
			size_t *lens, size_t *n)
{
	size_t off = 0, count = 0;

	for (;;) {
		uint32_t next;

		if (count == SMB2_MAX_COMPOUND) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		if (len - off < SMB2_HDR_LEN ||
		    le32(frame + off) != SMB2_MAGIC ||
		    le16(frame + off + SMB2_HDR_LENGTH) != SMB2_HDR_LEN) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		next = le32(frame + off + SMB2_HDR_NEXT_COMMAND);
		offs[count] = off;
		if (next == 0) {
			lens[count++] = len - off;
			break;
		}
		if (next < SMB2_HDR_LEN || (next & 7) != 0 ||
		    next > len - off) {
			return NT_STATUS_INVALID_PARAMETER;
		}
		lens[count++] = next;
		off += next;
	}
	*n = count;
	return NT_STATUS_OK;
}
