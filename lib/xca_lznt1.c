/*
 * MS-XCA LZNT1 (xca.h): compressor and decompressor of MS-XCA 2.5,
 * written from the specification; example vector in MS-XCA 3.3.
 *
 * Stream format.  The data is cut into 4096-byte chunks, each coded on
 * its own (no reference crosses a chunk boundary) behind a 16-bit
 * little-endian header: bits 0-11 are the chunk's stored size - 1 (the
 * bytes after the header), bits 12-14 the signature 3, bit 15 set when
 * the chunk is compressed.  An uncompressed chunk is the data as it is.
 * A compressed chunk is groups of a flag byte and up to 8 tokens, flag
 * bits least significant first: 0 is a literal byte, 1 a 16-bit
 * little-endian word holding displacement - 1 in its high bits and
 * length - 3 in its low bits.  Where the split lies depends on U, the
 * position in the chunk's output: the displacement takes the fewest bits
 * M >= 4 with 2^M >= U, so a displacement can always reach the chunk's
 * start, and the length the other 16 - M bits.  A header of 0 ends the
 * stream early; the stream also ends with its input.
 *
 * Decompression.  The decoded size is known (SMB2), so every chunk but
 * the last must decode to exactly 4096 bytes (a short one would move
 * every later chunk), the whole to exactly out_len; a bad signature, a
 * chunk longer than the input, a token cut short, a displacement before
 * the chunk's start or a copy past its end or past out_len fails it.
 * Nothing is allocated; every read and write is bounds-checked.
 *
 * Compression.  Greedy matching over short hash chains (3 candidates)
 * of 3-byte prefixes, within the chunk (24 KiB on the stack); as in
 * xca_lz77.c, a run of misses makes the scan step further (at most 16
 * bytes) and literals are copied as runs.  A chunk whose compressed
 * form is no smaller than its data is stored uncompressed, so the
 * stream grows at most 2 bytes per 4096.  Every write is checked
 * against out_cap.  Empty input gives the 2-byte end header, so that 0
 * still means only "did not fit".
 */
#include "lib/xca.h"
#include "lib/xca_private.h"

#include <string.h>

#ifdef XCA_COUNT_STEPS
uint64_t xca_steps;	/* xca.h: the decoders' work, counted */
#endif

#define LZNT1_CHUNK 4096
#define LZNT1_MIN_MATCH 3
#define LZNT1_HASH_BITS 12
#define LZNT1_SIG 0x3000
#define LZNT1_COMPRESSED 0x8000

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/*
 * Bits of a token that hold length - 3 at position u >= 1 of the chunk:
 * 16 less the displacement's bits, the fewest M >= 4 with 2^M >= u,
 * which is the bit length of u - 1 once u passes 16.
 */
static inline unsigned lznt1_len_bits(size_t u)
{
	if (u <= 16) {
		return 12;
	}
	return 16 - (32 - (unsigned)__builtin_clz((unsigned)(u - 1)));
}

/* ------------------------------------------------------------------ */
/* Decompression                                                       */
/* ------------------------------------------------------------------ */


/*
 * One compressed chunk's data ip..end into *opp, no further than lim
 * (the chunk's 4096 bytes or out_len, whichever comes first).
 */
static bool lznt1_dec_chunk(const uint8_t *ip, const uint8_t *end,
			    uint8_t **opp, uint8_t *lim)
{
	uint8_t *start = *opp, *op = *opp;

	while (ip < end) {
		unsigned flags = *ip++;

		XCA_STEP(1);
		/* Eight literals, the common case in text: one copy. */
		if (flags == 0 && end - ip >= 8 && lim - op >= 8) {
			memcpy(op, ip, 8);
			op += 8;
			ip += 8;
			continue;
		}
		for (int bit = 0; bit < 8 && ip < end; bit++, flags >>= 1) {
			size_t u = (size_t)(op - start), dist, len;
			unsigned tok, lb;

			XCA_STEP(1);
			if ((flags & 1) == 0) {
				if (op == lim) {
					return false;
				}
				*op++ = *ip++;
				continue;
			}
			if (end - ip < 2 || u == 0) {
				return false;
			}
			tok = rd16(ip);
			ip += 2;
			lb = lznt1_len_bits(u);
			dist = (tok >> lb) + 1;
			len = (tok & ((1u << lb) - 1)) + LZNT1_MIN_MATCH;
			if (dist > u || len > (size_t)(lim - op)) {
				return false;
			}
			xca_copy_match(op, dist, len, (size_t)(lim - op));
			op += len;
		}
	}
	*opp = op;
	return true;
}

bool xca_lznt1_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_len)
{
	const uint8_t *ip, *in_end;
	uint8_t *op, *out_end, none;

	/* Empty buffers may be NULL, and NULL + 0 is undefined in C. */
	if (in_len == 0) {
		return out_len == 0;
	}
	if (out_len == 0) {
		out = &none;
	}
	ip = in;
	in_end = in + in_len;
	op = out;
	out_end = out + out_len;
	while (ip < in_end) {
		unsigned hdr;
		size_t size, room;

		XCA_STEP(1);
		if (in_end - ip < 2) {
			return false;
		}
		hdr = rd16(ip);
		ip += 2;
		if (hdr == 0) {
			break;		/* the end marker */
		}
		size = (hdr & 0x0fff) + 1;
		if ((hdr & 0x7000) != LZNT1_SIG ||
		    size > (size_t)(in_end - ip) ||
		    (size_t)(op - out) % LZNT1_CHUNK != 0) {
			return false;
		}
		room = (size_t)(out_end - op);
		if (hdr & LZNT1_COMPRESSED) {
			uint8_t *lim = op + (room < LZNT1_CHUNK ?
					     room : LZNT1_CHUNK);

			if (!lznt1_dec_chunk(ip, ip + size, &op, lim)) {
				return false;
			}
		} else {
			if (size > room) {
				return false;
			}
			XCA_STEP_BYTES(size);
			memcpy(op, ip, size);
			op += size;
		}
		ip += size;
	}
	return op == out_end;
}

/* ------------------------------------------------------------------ */
/* Compression                                                         */
/* ------------------------------------------------------------------ */

struct lznt1_enc {
	uint8_t *op, *lim;	/* lim: give up on compressing here */
	uint8_t *flag_pos;	/* this group's flag byte */
	unsigned ntok;		/* tokens in the group so far */
};

/*
 * Room for a token of `size` bytes, starting a new group (and its flag
 * byte) every 8 tokens; the flag byte is only written once a token
 * needs it, so no chunk ends in an empty group.
 */
static bool lznt1_enc_token(struct lznt1_enc *e, size_t size, bool match)
{
	if (e->ntok == 0) {
		if (e->op == e->lim) {
			return false;
		}
		e->flag_pos = e->op++;
		*e->flag_pos = 0;
	}
	if ((size_t)(e->lim - e->op) < size) {
		return false;
	}
	if (match) {
		*e->flag_pos |= (uint8_t)(1u << e->ntok);
	}
	e->ntok = (e->ntok + 1) & 7;
	return true;
}

/* Literals p[0..n): as many at a time as the flag byte has bits left. */
static bool lznt1_enc_literals(struct lznt1_enc *e, const uint8_t *p,
			       size_t n)
{
	while (n > 0) {
		size_t k = 8 - e->ntok;

		if (k > n) {
			k = n;
		}
		/* Reserves the flag byte if needed; literal bits are 0. */
		if (!lznt1_enc_token(e, k, false)) {
			return false;
		}
		memcpy(e->op, p, k);
		e->op += k;
		p += k;
		n -= k;
		e->ntok = (unsigned)((e->ntok + k - 1) & 7);
	}
	return true;
}

static inline uint32_t lznt1_hash(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
		     ((uint32_t)p[2] << 16);

	return (v * 2654435761u) >> (32 - LZNT1_HASH_BITS);
}

/* How far a and b agree (b < a), at most max bytes. */
static size_t lznt1_match_len(const uint8_t *a, const uint8_t *b,
			      size_t max)
{
	size_t n = 0;
	uint64_t x, y;

	while (max - n >= 8) {
		memcpy(&x, a + n, 8);
		memcpy(&y, b + n, 8);
		if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return n + (size_t)(__builtin_ctzll(x ^ y) >> 3);
#else
			break;
#endif
		}
		n += 8;
	}
	while (n < max && a[n] == b[n]) {
		n++;
	}
	return n;
}

/*
 * Where to look for matches: head[] the last position per hash of 3
 * bytes (a position from an earlier chunk counts as none), prev[] (by
 * position in the chunk) how far back the position before it with the
 * same hash lies, 0 for none in this chunk.  24 KiB, on the stack.
 */
struct lznt1_tab {
	uint32_t head[1u << LZNT1_HASH_BITS];
	uint16_t prev[LZNT1_CHUNK];
};

/* Candidates tried per position: the ratio against the speed. */
#define LZNT1_CHAIN_DEPTH 3

/* Enter position u of the chunk starting at base (n - u >= 3). */
static inline void lznt1_insert(struct lznt1_tab *t, const uint8_t *c,
				size_t base, size_t u)
{
	uint32_t h = lznt1_hash(c + u);

	t->prev[u] = (uint16_t)(t->head[h] >= base ? base + u - t->head[h]
						    : 0);
	t->head[h] = (uint32_t)(base + u);
}

/*
 * The longest match at position u of the chunk c[0..n) among the chain's
 * first candidates (then u is entered), or 0.  Its length is capped by
 * what the token's length bits can say at u.
 */
static size_t lznt1_find(const uint8_t *in, const uint8_t *c, size_t u,
			 size_t n, struct lznt1_tab *t, size_t *dist)
{
	size_t base = (size_t)(c - in), max, best = 0, cand;
	int depth = LZNT1_CHAIN_DEPTH;

	if (n - u < LZNT1_MIN_MATCH) {
		return 0;
	}
	cand = t->head[lznt1_hash(c + u)];
	if (cand < base || cand >= base + u) {
		lznt1_insert(t, c, base, u);	/* the common miss, quickly */
		return 0;
	}
	max = ((size_t)1 << lznt1_len_bits(u)) - 1 + LZNT1_MIN_MATCH;
	if (max > n - u) {
		max = n - u;
	}
	while (depth-- > 0 && cand >= base && cand < base + u) {
		size_t cu = cand - base;

		/* Only a longer match is worth the full compare. */
		if (best < max && c[cu + best] == c[u + best]) {
			size_t len = lznt1_match_len(c + u, c + cu, max);

			if (len > best) {
				best = len;
				*dist = u - cu;
			}
		}
		if (t->prev[cu] == 0) {
			break;
		}
		cand -= t->prev[cu];
	}
	lznt1_insert(t, c, base, u);
	return best;
}

/*
 * Misses in a row before the scan starts skipping: 1 more byte per 32
 * misses, at most LZNT1_MAX_STEP, so incompressible chunks go by quickly
 * while text is scanned byte by byte.
 */
#define LZNT1_SKIP_SHIFT 5
#define LZNT1_MAX_STEP 16

/*
 * Positions inside a match entered in the chains: all of a short one,
 * the ends of a long one (a run's middle adds nothing but time).
 */
#define LZNT1_INSERT_EDGE 16

static void lznt1_insert_match(struct lznt1_tab *t, const uint8_t *c,
			       size_t base, size_t from, size_t to, size_t n)
{
	size_t u;

	if (to + LZNT1_MIN_MATCH > n) {
		to = n - LZNT1_MIN_MATCH + 1;	/* the hash reads 3 bytes */
	}
	for (u = from; u < to; u++) {
		if (u - from == LZNT1_INSERT_EDGE &&
		    to - u > LZNT1_INSERT_EDGE) {
			u = to - LZNT1_INSERT_EDGE;
		}
		lznt1_insert(t, c, base, u);
	}
}

/*
 * Compress chunk c[0..n) into e (header excluded).  False when the
 * result would reach e->lim.
 */
static bool lznt1_enc_chunk(struct lznt1_enc *e, const uint8_t *in,
			    const uint8_t *c, size_t n, struct lznt1_tab *t)
{
	size_t u = 0, anchor = 0, misses = 0;

	while (u < n) {
		size_t dist = 0, len = lznt1_find(in, c, u, n, t, &dist);

		if (len < LZNT1_MIN_MATCH) {
			size_t step = 1 + (misses++ >> LZNT1_SKIP_SHIFT);

			step = step < LZNT1_MAX_STEP ? step : LZNT1_MAX_STEP;
			u += step < n - u ? step : n - u;
			continue;
		}
		if (!lznt1_enc_literals(e, c + anchor, u - anchor) ||
		    !lznt1_enc_token(e, 2, true)) {
			return false;
		}
		wr16(e->op, (uint32_t)((dist - 1) << lznt1_len_bits(u)) |
				    (uint32_t)(len - LZNT1_MIN_MATCH));
		e->op += 2;
		lznt1_insert_match(t, c, (size_t)(c - in), u + 1, u + len, n);
		u += len;
		anchor = u;
		misses = 0;
	}
	return lznt1_enc_literals(e, c + anchor, n - anchor);
}

/*
 * One chunk c[0..n) at op: compressed when that is smaller, else as it
 * is.  Returns the bytes written, header included, or 0 if neither fits.
 */
static size_t lznt1_chunk(const uint8_t *in, const uint8_t *c, size_t n,
			  uint8_t *op, size_t room, struct lznt1_tab *t)
{
	struct lznt1_enc e;
	size_t size;

	if (room < 2 + 1) {
		return 0;
	}
	/* Compressed must be smaller than n (and fit) to be worth it. */
	e.op = op + 2;
	e.lim = e.op + (room - 2 < n - 1 ? room - 2 : n - 1);
	e.ntok = 0;
	e.flag_pos = NULL;
	if (lznt1_enc_chunk(&e, in, c, n, t)) {
		size = (size_t)(e.op - (op + 2));
		wr16(op, LZNT1_COMPRESSED | LZNT1_SIG | (uint32_t)(size - 1));
		return size + 2;
	}
	if (room - 2 < n) {
		return 0;
	}
	wr16(op, LZNT1_SIG | (uint32_t)(n - 1));
	memcpy(op + 2, c, n);
	return n + 2;
}

size_t xca_lznt1_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			  size_t out_cap)
{
	struct lznt1_tab t;
	size_t pos = 0, o = 0;

	if (in_len > UINT32_MAX) {
		return 0;
	}
	if (in_len == 0) {
		if (out_cap < 2) {
			return 0;
		}
		wr16(out, 0);
		return 2;
	}
	/* A header and a byte at least (and out may be NULL if 0). */
	if (out_cap < 3) {
		return 0;
	}
	/* Position 0 everywhere: a wrong guess is only a failed compare. */
	memset(&t, 0, sizeof(t));
	while (pos < in_len) {
		size_t n = in_len - pos < LZNT1_CHUNK ? in_len - pos
						      : LZNT1_CHUNK;
		size_t w = lznt1_chunk(in, in + pos, n, out + o, out_cap - o,
				       &t);

		if (w == 0) {
			return 0;
		}
		o += w;
		pos += n;
	}
	return o;
}
