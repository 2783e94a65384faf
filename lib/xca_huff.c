/*
 * MS-XCA LZ77+Huffman ("Xpress Huffman"), written from the specification:
 * 2.1 (compression), 2.2 (decompression) and the examples in 3.2.
 *
 * Stream format (2.1.4, 2.2.1-2.2.4).  The data is cut into 64 KiB blocks
 * of output.  Every block starts with a 256-byte table holding the 4-bit
 * code length of each of the 512 Huffman symbols (low nibble = even
 * symbol), from which canonical codes are built: shorter codes first,
 * equal lengths in symbol order, codes at most 15 bits.  Then comes a bit
 * stream of 16-bit little-endian words read most significant bit first.
 * Symbols 0-255 are literal bytes; 256-511 are matches: the low nibble is
 * min(length - 3, 15), the high nibble the position of the top bit of the
 * offset, whose remaining low bits follow in the bit stream.  A length
 * nibble of 15 is extended by bytes stored in the plain byte sequence
 * between the bit-stream words: one byte (length - 18) if below 255, else
 * 255 and 16 bits of (length - 3), or 0 and 32 bits when that is larger.
 * After the final block's data comes the EOF symbol, 256.
 *
 * The decoder of 2.2.4 keeps 32 bits of look-ahead and reads the next word
 * at the current input position whenever fewer than 16 bits remain, and
 * the extension bytes are read from that same position.  So where a word
 * sits relative to the extension bytes is fixed by when the decoder runs
 * out of bits: the encoder (2.1.4.3's WriteBits) keeps two word slots
 * reserved ahead and reserves the next one exactly when a write crosses
 * into a new word, which is the moment the decoder would read it.  Both
 * sides here follow that model bit for bit, which also makes the size of
 * an encoded block computable before it is written.
 *
 * A block ends once 65536 bytes have been output since its start (2.2.4
 * "BlockEnd", checked before each symbol, so a match may run past it and
 * the next block's 64 KiB count from where it ended); the next table
 * starts right after the words the decoder has read.  Our encoder never
 * lets a match run past its block, so its blocks are 64 KiB of input each.
 * When the output is complete and too little input is left for another
 * table, the stream ends there (2.2.4), which is how a stream of an exact
 * multiple of 64 KiB may end without the decoder reaching its EOF symbol.
 *
 * Symbol 256 doubles as "match of 3 at offset 1"; 2.2.4 takes it as EOF
 * when the output is complete and the input used up.  Here a 256 decoded
 * at the expected output size ends the stream even with input left over
 * (as a match it would overrun out_len, so no valid reading is lost), and
 * the encoder never emits that match, so no decoder can misread it.
 *
 * The decoder allocates nothing: its two-level lookup table (about 34 KiB
 * at most) lives on the stack.  The compressor allocates its hash chains
 * and token buffer once per call, sized to the input.
 *
 * The compressor is the greedy LZ77 of 2.1.4.1 with hash chains bounded
 * in depth (offsets up to 65535).  It counts symbol frequencies per block
 * and builds length-limited Huffman codes (2.1.4.2) by halving the
 * frequencies until the tree is at most 15 deep, which keeps the code
 * complete and is needed only for very skewed blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/xca.h"
#include "lib/xca_private.h"

#define XH_BLOCK 65536u		/* output bytes a block (2.1.4, 2.2.4) */
#define XH_NSYM 512u
#define XH_EOF 256u
#define XH_MAXBITS 15u
#define XH_TABLE 256u		/* bytes of packed code lengths */
#define XH_MAXOFF 65535u
#define XH_MINMATCH 3u

/* -------------------------------------------------------------------- */
/* Shared: canonical codes from lengths (2.1.4.2, 2.2.3).               */

/*
 * Assign canonical codes: by length, then by symbol.  Returns the Kraft
 * sum in units of 2^-15 so the decoder can refuse an over-subscribed
 * table (more than 32768) before filling its lookup table.
 */
static uint32_t canon_codes(const uint8_t *len, uint16_t *code)
{
	uint32_t count[XH_MAXBITS + 1] = { 0 };
	uint32_t next[XH_MAXBITS + 1];
	uint32_t c = 0, kraft = 0;
	unsigned l, s;

	XCA_STEP(2 * XH_NSYM + XH_MAXBITS);
	for (s = 0; s < XH_NSYM; s++) {
		count[len[s]]++;
	}
	count[0] = 0;
	for (l = 1; l <= XH_MAXBITS; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
		kraft += count[l] << (XH_MAXBITS - l);
	}
	if (kraft > (1u << XH_MAXBITS)) {
		return kraft;
	}
	for (s = 0; s < XH_NSYM; s++) {
		if (len[s] != 0) {
			code[s] = (uint16_t)next[len[s]]++;
		}
	}
	return kraft;
}

/* -------------------------------------------------------------------- */
/* Decompression (2.2).                                                 */

/*
 * Two-level lookup table.  The root is indexed by the next 10 bits; an
 * entry is length << 9 | symbol for codes up to 10 bits, XH_SUB | index
 * of a 32-entry subtable over the following 5 bits for longer ones, and 0
 * for bit patterns no code starts with (an incomplete table is accepted,
 * as 2.2.3 does not forbid one; decoding such a pattern is an error).  A
 * full 15-bit table would cost 64 KiB of stores per block, which for a
 * small message is more than the decoding.
 */
#define XH_ROOT 10u
#define XH_SUBBITS (XH_MAXBITS - XH_ROOT)
#define XH_SUB 0x8000u
#define XH_TABSZ ((1u << XH_ROOT) + (XH_NSYM << XH_SUBBITS))

struct xh_dec {
	const uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t out_len;
	uint16_t table[XH_TABSZ];
};

/*
 * Position and bit window.  The block loop keeps this in a local so the
 * compiler can hold it in registers: stores to the output bytes could
 * alias anything reachable through a pointer.
 */
struct xh_pos {
	size_t ipos;		/* 2.2.4 CurrentPosition */
	size_t opos;
	uint32_t bits;		/* 2.2.4 NextBits, next bit at bit 31 */
	int extra;		/* 2.2.4 ExtraBitCount */
};

/* Symbols in canonical order (by length, then symbol); returns how many
 * have a code. */
static unsigned sort_symbols(const uint8_t *len, uint16_t *sorted)
{
	uint32_t start[XH_MAXBITS + 2] = { 0 };
	unsigned s, k;

	XCA_STEP(3 * XH_NSYM + XH_MAXBITS);
	for (s = 0; s < XH_NSYM; s++) {
		start[len[s] + 1]++;
	}
	for (k = 1; k <= XH_MAXBITS + 1; k++) {
		start[k] += start[k - 1];
	}
	k = start[1];		/* symbols without a code come first */
	for (s = 0; s < XH_NSYM; s++) {
		sorted[start[len[s]]++] = (uint16_t)s;
	}
	memmove(sorted, sorted + k, (XH_NSYM - k) * sizeof(sorted[0]));
	return XH_NSYM - k;
}

static inline void fill16(uint16_t *t, uint16_t e, uint32_t n)
{
	uint32_t i;

	XCA_STEP(n);
	for (i = 0; i < n; i++) {
		t[i] = e;
	}
}

/*
 * Codes longer than the root: canonical codes with the same 10-bit prefix
 * are consecutive, so each new prefix opens the next subtable.
 */
static void dec_fill_long(struct xh_dec *d, const uint8_t *len,
			  const uint16_t *code, const uint16_t *sorted,
			  unsigned k, unsigned n)
{
	uint32_t next = 1u << XH_ROOT, prefix = UINT32_MAX, base = 0;

	for (; k < n; k++) {
		unsigned sym = sorted[k], l = len[sym];
		uint32_t c = code[sym];

		XCA_STEP(1);
		if (c >> (l - XH_ROOT) != prefix) {
			prefix = c >> (l - XH_ROOT);
			base = next;
			next += 1u << XH_SUBBITS;
			XCA_STEP_BYTES(sizeof(d->table[0]) << XH_SUBBITS);
			memset(d->table + base, 0,
			       sizeof(d->table[0]) << XH_SUBBITS);
			d->table[prefix] = (uint16_t)(XH_SUB | base);
		}
		fill16(d->table + base + ((c << (XH_MAXBITS - l)) &
					  ((1u << XH_SUBBITS) - 1)),
		       (uint16_t)(l << 9 | sym), 1u << (XH_MAXBITS - l));
	}
}

static bool dec_build_table(struct xh_dec *d, const uint8_t *t)
{
	uint8_t len[XH_NSYM];
	uint16_t code[XH_NSYM], sorted[XH_NSYM];
	uint32_t pos = 0;
	unsigned s, k, n;

	XCA_STEP(XH_TABLE);
	for (s = 0; s < XH_TABLE; s++) {
		len[2 * s] = t[s] & 15;
		len[2 * s + 1] = t[s] >> 4;
	}
	if (canon_codes(len, code) > (1u << XH_MAXBITS)) {
		return false;
	}
	n = sort_symbols(len, sorted);
	/* Short codes tile the root from 0 upward without gaps. */
	for (k = 0; k < n && len[sorted[k]] <= XH_ROOT; k++) {
		unsigned sym = sorted[k], l = len[sym];

		XCA_STEP(1);
		fill16(d->table + pos, (uint16_t)(l << 9 | sym),
		       1u << (XH_ROOT - l));
		pos += 1u << (XH_ROOT - l);
	}
	XCA_STEP_BYTES(((1u << XH_ROOT) - pos) * sizeof(d->table[0]));
	memset(d->table + pos, 0, ((1u << XH_ROOT) - pos) *
	       sizeof(d->table[0]));
	dec_fill_long(d, len, code, sorted, k, n);
	return true;
}

static inline bool dec_read16(const struct xh_dec *d, struct xh_pos *p,
			      uint32_t *v)
{
	if (d->in_len - p->ipos < 2) {
		return false;
	}
	*v = (uint32_t)d->in[p->ipos] | (uint32_t)d->in[p->ipos + 1] << 8;
	p->ipos += 2;
	return true;
}

/* Drop n bits; refill one word when below 16, exactly as 2.2.4 does. */
static inline bool dec_consume(const struct xh_dec *d, struct xh_pos *p,
			       unsigned n)
{
	uint32_t w;

	p->bits <<= n;
	p->extra -= (int)n;
	if (p->extra < 0) {
		if (!dec_read16(d, p, &w)) {
			return false;
		}
		p->bits |= w << -p->extra;
		p->extra += 16;
	}
	return true;
}

/* The length extension bytes for a length nibble of 15 (2.2.4). */
static bool dec_long_length(const struct xh_dec *d, struct xh_pos *ps,
			    uint64_t *mlen)
{
	const uint8_t *p = d->in + ps->ipos;
	size_t left = d->in_len - ps->ipos;
	uint32_t v;

	if (left < 1) {
		return false;
	}
	if (p[0] != 255) {
		*mlen = (uint64_t)p[0] + 15;
		ps->ipos += 1;
		return true;
	}
	if (left < 3) {
		return false;
	}
	v = (uint32_t)p[1] | (uint32_t)p[2] << 8;
	ps->ipos += 3;
	if (v == 0) {
		if (left < 7) {
			return false;
		}
		v = (uint32_t)p[3] | (uint32_t)p[4] << 8 |
		    (uint32_t)p[5] << 16 | (uint32_t)p[6] << 24;
		ps->ipos += 4;
	}
	if (v < 15) {
		return false;
	}
	*mlen = v;
	return true;
}

/*
 * Copy a back-reference that may overlap its source: the region from src
 * on is periodic, so each copy can take everything written so far.
 */
static inline void dec_copy(uint8_t *dst, size_t off, size_t len)
{
	const uint8_t *src = dst - off;

	if (off == 1) {
		XCA_STEP_BYTES(len);
		memset(dst, *src, len);
		return;
	}
	while (len > 0) {
		size_t n = (size_t)(dst - src);

		if (n > len) {
			n = len;
		}
		XCA_STEP_BYTES(n);
		memcpy(dst, src, n);
		dst += n;
		len -= n;
	}
}

/* A match symbol (already minus 256): read its length and offset, copy. */
static inline bool dec_match(const struct xh_dec *d, struct xh_pos *p,
			     unsigned sym)
{
	unsigned obits = sym >> 4;
	uint64_t mlen = sym & 15;
	size_t off;

	if (mlen == 15 && !dec_long_length(d, p, &mlen)) {
		return false;
	}
	mlen += XH_MINMATCH;
	off = (size_t)1 << obits;
	if (obits != 0) {
		off += p->bits >> (32 - obits);
	}
	if (!dec_consume(d, p, obits)) {
		return false;
	}
	if (off > p->opos || mlen > d->out_len - p->opos) {
		return false;
	}
	dec_copy(d->out + p->opos, off, (size_t)mlen);
	p->opos += (size_t)mlen;
	return true;
}

enum dec_rc { DEC_MORE, DEC_DONE, DEC_FAIL };

/* Symbols until the block's 64 KiB are out, or EOF (2.2.4). */
static enum dec_rc dec_symbols(const struct xh_dec *d, struct xh_pos *ps)
{
	struct xh_pos p = *ps;
	size_t block_end = p.opos + XH_BLOCK;
	enum dec_rc rc = DEC_MORE;

	while (p.opos < block_end) {
		unsigned e = d->table[p.bits >> (32 - XH_ROOT)];
		unsigned sym;

		XCA_STEP(1);
		if (e & XH_SUB) {
			e = d->table[(e & ~XH_SUB) +
				     ((p.bits >> (32 - XH_MAXBITS)) &
				      ((1u << XH_SUBBITS) - 1))];
		}
		sym = e & 511;
		if (e == 0 || !dec_consume(d, &p, e >> 9)) {
			rc = DEC_FAIL;
			break;
		}
		if (sym < 256) {
			if (p.opos == d->out_len) {
				rc = DEC_FAIL;
				break;
			}
			d->out[p.opos++] = (uint8_t)sym;
		} else if (sym == XH_EOF && p.opos == d->out_len) {
			rc = DEC_DONE;
			break;
		} else if (!dec_match(d, &p, sym - 256)) {
			rc = DEC_FAIL;
			break;
		}
	}
	*ps = p;
	return rc;
}

/* One block: table, the first two words, then its symbols. */
static enum dec_rc dec_block(struct xh_dec *d, struct xh_pos *p)
{
	uint32_t w0, w1;

	XCA_STEP(1);
	if (d->in_len - p->ipos < XH_TABLE) {
		/* 2.2.4: no room for another table ends the stream. */
		return p->opos == d->out_len ? DEC_DONE : DEC_FAIL;
	}
	if (!dec_build_table(d, d->in + p->ipos)) {
		return DEC_FAIL;
	}
	p->ipos += XH_TABLE;
	if (!dec_read16(d, p, &w0) || !dec_read16(d, p, &w1)) {
		return DEC_FAIL;
	}
	p->bits = w0 << 16 | w1;
	p->extra = 16;
	return dec_symbols(d, p);
}

bool xca_huff_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_len)
{
	struct xh_dec d;
	struct xh_pos p = { 0 };
	enum dec_rc rc;

	d.in = in;
	d.in_len = in_len;
	d.out = out;
	d.out_len = out_len;
	do {
		rc = dec_block(&d, &p);
	} while (rc == DEC_MORE);
	return rc == DEC_DONE && p.opos == out_len;
}

/* -------------------------------------------------------------------- */
/* Compression (2.1).                                                   */

#define XH_HASH_MAX 16u	/* hash bits for a 64 KiB window */
#define XH_HASH_MIN 10u
#define XH_CHAIN 8u		/* candidates looked at per position */
#define XH_NICE 128u		/* a match this long ends the search */
#define XH_FAR3 2048u		/* a 3-byte match further away costs more */
#define XH_SKIP 5u		/* misses in a row before stepping faster */

/* LZ77 output of one block: off == 0 is a literal v, else length v + 3. */
struct xh_tok {
	uint16_t v;
	uint16_t off;
};

/*
 * Compressor state, one allocation sized to the input: a small request
 * should not pay for a 64 KiB window's tables.
 */
struct xh_enc {
	uint32_t *head;		/* by hash: position + 1, 0 = none */
	uint32_t *prev;		/* chain links, by position mod window */
	struct xh_tok *tok;
	unsigned hash_bits;
	uint32_t wmask;		/* prev[] size - 1 */
	size_t ntok;
	uint32_t freq[XH_NSYM];
	uint64_t obits;		/* offset bits in the block */
	uint64_t raw;		/* length extension bytes in the block */
	uint8_t len[XH_NSYM];
	uint16_t code[XH_NSYM];
};

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline unsigned top_bit(uint32_t v)
{
	return 31u - (unsigned)__builtin_clz(v);
}

/*
 * Hash of the 4 bytes at p (the caller guarantees they exist).  Four, not
 * the minimum match of three: 3-byte matches rarely pay (a symbol plus up
 * to 15 offset bits against three literals), and the wider key keeps the
 * chains to real candidates.
 */
static inline uint32_t hash4(const struct xh_enc *e, const uint8_t *p)
{
	return (load32(p) * 2654435761u) >> (32 - e->hash_bits);
}

/* Length of the common prefix of a and b, at most max. */
static inline size_t match_len(const uint8_t *a, const uint8_t *b,
			       size_t max)
{
	size_t n = 0;

	while (n + 8 <= max) {
		uint64_t x = load64(a + n) ^ load64(b + n);

		if (x != 0) {
			/* Little-endian loads: the first difference is
			 * the lowest set bit. */
			return n + ((unsigned)__builtin_ctzll(x) >> 3);
		}
		n += 8;
	}
	while (n < max && a[n] == b[n]) {
		n++;
	}
	return n;
}

static inline void enc_insert(struct xh_enc *e, const uint8_t *in, size_t i)
{
	uint32_t h = hash4(e, in + i);

	e->prev[i & e->wmask] = e->head[h];
	e->head[h] = (uint32_t)i + 1;
}

/*
 * Best match for position i among the chain of earlier positions with the
 * same hash; inserts i.  max is how far the match may run (block end).
 */
static size_t enc_find(struct xh_enc *e, const uint8_t *in, size_t i,
		       size_t max, size_t *best_off)
{
	uint32_t h = hash4(e, in + i);
	uint32_t cand = e->head[h];
	size_t best = 0;
	unsigned depth = 0;

	e->prev[i & e->wmask] = cand;
	e->head[h] = (uint32_t)i + 1;
	/* Chains only ever point backwards, and positions within the
	 * window (no larger than prev[]) have not had their prev slot
	 * reused yet. */
	while (cand != 0 && i - (cand - 1) <= XH_MAXOFF &&
	       depth++ < XH_CHAIN) {
		size_t c = cand - 1, n;

		if (in[c + best] == in[i + best]) {
			n = match_len(in + c, in + i, max);
			if (n > best) {
				best = n;
				*best_off = i - c;
				if (n >= XH_NICE || n == max) {
					break;
				}
			}
		}
		cand = e->prev[c & e->wmask];
	}
	return best;
}

static void enc_literal(struct xh_enc *e, uint8_t b)
{
	e->tok[e->ntok].v = b;
	e->tok[e->ntok].off = 0;
	e->ntok++;
	e->freq[b]++;
}

/* Record a match and what it will cost besides its Huffman symbol. */
static void enc_match(struct xh_enc *e, size_t len, size_t off)
{
	size_t l3 = len - XH_MINMATCH;
	unsigned hb = top_bit((uint32_t)off);

	e->tok[e->ntok].v = (uint16_t)l3;
	e->tok[e->ntok].off = (uint16_t)off;
	e->ntok++;
	e->freq[256 + (l3 < 15 ? l3 : 15) + 16 * hb]++;
	e->obits += hb;
	if (l3 >= 15) {
		e->raw += l3 - 15 < 255 ? 1 : (l3 <= 0xffff ? 3 : 7);
	}
}

/* Index the positions inside a match, but only the tail of a long one:
 * runs would cost time for nothing.  Hashing needs 4 bytes. */
static void enc_insert_match(struct xh_enc *e, const uint8_t *in,
			     size_t in_len, size_t i, size_t len)
{
	size_t j = len > 64 ? i + len - 16 : i + 1;
	size_t stop = i + len;

	if (stop > in_len - 3) {
		stop = in_len - 3;
	}
	for (; j < stop; j++) {
		enc_insert(e, in, j);
	}
}

/*
 * Greedy LZ77 over in[start..end) (2.1.4.1); positions before start are
 * in the window.  Fills tok[] and freq[].  After a run of misses the
 * search steps over positions faster (emitting them as literals), which
 * is what keeps incompressible data cheap; a match resets the step.
 */
static void enc_lz77(struct xh_enc *e, const uint8_t *in, size_t in_len,
		     size_t start, size_t end)
{
	size_t i = start, miss = 0;

	while (i < end) {
		size_t off = 0, len = 0, step, k;

		if (in_len - i >= 4) {
			len = enc_find(e, in, i, end - i, &off);
		}
		/* Offset 1 length 3 is symbol 256, the EOF symbol; a short
		 * far match costs more bits than three literals. */
		if (len >= XH_MINMATCH && (len > 3 || (off != 1 &&
						      off <= XH_FAR3))) {
			enc_match(e, len, off);
			enc_insert_match(e, in, in_len, i, len);
			i += len;
			miss = 0;
			continue;
		}
		step = 1 + (miss++ >> XH_SKIP);
		if (step > end - i) {
			step = end - i;
		}
		for (k = 0; k < step; k++) {
			enc_literal(e, in[i + k]);
		}
		i += step;
	}
}

/* -------------------------------------------------------------------- */
/* Huffman code lengths (2.1.4.2).                                      */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Plain Huffman over the n used symbols (sorted by weight: key = weight
 * << 9 | symbol), by the two-queue method: leaves and merged nodes each
 * come out in weight order.  Writes the depths to len[] and returns the
 * largest.
 */
static unsigned huff_tree(const uint64_t *key, unsigned n, uint8_t *len)
{
	uint64_t w[2 * XH_NSYM];
	uint16_t parent[2 * XH_NSYM];
	uint8_t depth[2 * XH_NSYM];
	unsigned leaf = 0, node = n, next = n, k, maxd = 0;

	for (k = 0; k < n; k++) {
		w[k] = key[k] >> 9;
	}
	for (; next < 2 * n - 1; next++) {
		unsigned pick[2], j;

		for (j = 0; j < 2; j++) {
			if (leaf < n && (node >= next || w[leaf] <= w[node])) {
				pick[j] = leaf++;
			} else {
				pick[j] = node++;
			}
		}
		w[next] = w[pick[0]] + w[pick[1]];
		parent[pick[0]] = parent[pick[1]] = (uint16_t)next;
	}
	depth[2 * n - 2] = 0;
	for (k = 2 * n - 2; k-- > 0;) {
		depth[k] = (uint8_t)(depth[parent[k]] + 1);
	}
	for (k = 0; k < n; k++) {
		len[key[k] & 511] = depth[k];
		if (depth[k] > maxd) {
			maxd = depth[k];
		}
	}
	return maxd;
}

/*
 * Code lengths for freq[], at most 15 bits.  Two symbols at least, so the
 * code is always complete (one symbol would get a lone 1-bit code).  When
 * the tree is too deep, halving the weights (keeping them nonzero)
 * flattens it; a block of 64K symbols needs that only for pathological
 * frequency shapes, and it converges to a balanced tree at worst.
 */
static void huff_lengths(const uint32_t *freq, uint8_t *len)
{
	uint64_t key[XH_NSYM];
	unsigned n = 0, s, k;

	memset(len, 0, XH_NSYM);
	for (s = 0; s < XH_NSYM; s++) {
		if (freq[s] != 0) {
			key[n++] = (uint64_t)freq[s] << 9 | s;
		}
	}
	if (n == 1) {
		/* Any unused symbol will do as the partner. */
		key[n++] = (uint64_t)1 << 9 | ((key[0] & 511) == 0 ? 1 : 0);
	}
	qsort(key, n, sizeof(key[0]), cmp_u64);
	while (huff_tree(key, n, len) > XH_MAXBITS) {
		for (k = 0; k < n; k++) {
			uint64_t wt = ((key[k] >> 9) + 1) >> 1;

			key[k] = wt << 9 | (key[k] & 511);
		}
		/* Halving keeps the order, up to ties of equal weight
		 * that the symbol bits still break consistently. */
		qsort(key, n, sizeof(key[0]), cmp_u64);
	}
}

/* -------------------------------------------------------------------- */
/* Bit stream writer (2.1.4.3 WriteBits / FlushBits).                   */

struct xh_bitw {
	uint8_t *w1;		/* slot of the word being filled */
	uint8_t *w2;		/* slot reserved for the word after it */
	uint8_t *p;		/* next free byte */
	uint32_t acc;		/* pending bits, newest lowest */
	unsigned n;		/* bits in acc that belong to *w1 (0-16) */
};

static inline void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void bw_init(struct xh_bitw *bw, uint8_t *p)
{
	bw->w1 = p;
	bw->w2 = p + 2;
	bw->p = p + 4;
	bw->acc = 0;
	bw->n = 0;
}

/*
 * Append len (<= 16) bits.  The word is written, and a new slot reserved,
 * only when bits spill past the current word: that is when the decoder,
 * having consumed into the next word, reads a new one.
 */
static inline void bw_put(struct xh_bitw *bw, uint32_t code, unsigned len)
{
	bw->acc = bw->acc << len | code;
	bw->n += len;
	if (bw->n > 16) {
		bw->n -= 16;
		put16(bw->w1, bw->acc >> bw->n);
		bw->w1 = bw->w2;
		bw->w2 = bw->p;
		bw->p += 2;
	}
}

static inline void bw_flush(struct xh_bitw *bw)
{
	put16(bw->w1, bw->acc << (16 - bw->n));
	put16(bw->w2, 0);
}

/* -------------------------------------------------------------------- */
/* Block encoding (2.1.4.3).                                            */

/* Exact size of the encoded block, following the writer's rules. */
static uint64_t enc_block_size(const struct xh_enc *e)
{
	uint64_t bits = e->obits, words;
	unsigned s;

	for (s = 0; s < XH_NSYM; s++) {
		bits += (uint64_t)e->freq[s] * e->len[s];
	}
	/* Two words are reserved up front and one more each time the
	 * bits cross into a further word: ceil(bits / 16) + 1. */
	words = bits == 0 ? 2 : (bits + 15) / 16 + 1;
	return XH_TABLE + 2 * words + e->raw;
}

static void enc_match_out(const struct xh_enc *e, struct xh_bitw *bw,
			  const struct xh_tok *t)
{
	uint32_t l3 = t->v, off = t->off;
	unsigned hb = top_bit(off);
	unsigned sym = 256 + (l3 < 15 ? l3 : 15) + 16 * hb;

	bw_put(bw, e->code[sym], e->len[sym]);
	if (l3 >= 15) {
		if (l3 - 15 < 255) {
			*bw->p++ = (uint8_t)(l3 - 15);
		} else {
			/* Blocks are at most 64K, so l3 fits 16 bits and
			 * the 32-bit form is never needed. */
			*bw->p++ = 255;
			put16(bw->p, l3);
			bw->p += 2;
		}
	}
	bw_put(bw, off - (1u << hb), hb);
}

/* Write table and bit stream of the block at out; returns its end. */
static uint8_t *enc_write(const struct xh_enc *e, uint8_t *out, bool last)
{
	struct xh_bitw bw;
	size_t k;
	unsigned s;

	for (s = 0; s < XH_TABLE; s++) {
		out[s] = (uint8_t)(e->len[2 * s] | e->len[2 * s + 1] << 4);
	}
	bw_init(&bw, out + XH_TABLE);
	for (k = 0; k < e->ntok; k++) {
		const struct xh_tok *t = &e->tok[k];

		if (t->off == 0) {
			bw_put(&bw, e->code[t->v], e->len[t->v]);
		} else {
			enc_match_out(e, &bw, t);
		}
	}
	if (last) {
		bw_put(&bw, e->code[XH_EOF], e->len[XH_EOF]);
	}
	bw_flush(&bw);
	return bw.p;
}

/* State sized to the input: window and hash no bigger than it needs. */
static struct xh_enc *enc_new(size_t in_len)
{
	size_t win = 1024, hsz, ntok;
	struct xh_enc *e;
	unsigned hb = XH_HASH_MIN;

	while (win < in_len && win < XH_BLOCK) {
		win <<= 1;
	}
	while (hb < XH_HASH_MAX && (1u << hb) < win) {
		hb++;
	}
	hsz = (size_t)1 << hb;
	ntok = (in_len < XH_BLOCK ? in_len : XH_BLOCK) + 1;
	e = malloc(sizeof(*e) + hsz * 4 + win * 4 + ntok * sizeof(*e->tok));
	if (e == NULL) {
		return NULL;
	}
	e->head = (uint32_t *)(e + 1);
	e->prev = e->head + hsz;
	e->tok = (struct xh_tok *)(e->prev + win);
	e->hash_bits = hb;
	e->wmask = (uint32_t)win - 1;
	memset(e->head, 0, hsz * 4);
	return e;
}

size_t xca_huff_compress(const uint8_t *in, size_t in_len, uint8_t *out,
			 size_t out_cap)
{
	struct xh_enc *e;
	size_t pos = 0, used = 0;

	if (out_cap < XH_TABLE + 4 || in_len > UINT32_MAX - XH_BLOCK) {
		return 0;
	}
	e = enc_new(in_len);
	if (e == NULL) {
		return 0;
	}
	do {
		size_t end = in_len - pos > XH_BLOCK ? pos + XH_BLOCK : in_len;
		bool last = end == in_len;
		uint64_t need;

		e->ntok = 0;
		e->obits = e->raw = 0;
		memset(e->freq, 0, sizeof(e->freq));
		enc_lz77(e, in, in_len, pos, end);
		if (last) {
			e->freq[XH_EOF]++;
		}
		huff_lengths(e->freq, e->len);
		canon_codes(e->len, e->code);
		/* Knowing the exact size first, the writer needs no bounds
		 * checks and nothing is written past out_cap. */
		need = enc_block_size(e);
		if (need > out_cap - used) {
			used = 0;
			break;
		}
		if ((size_t)(enc_write(e, out + used, last) - out) !=
		    used + need) {
			abort();
		}
		used += (size_t)need;
		pos = end;
	} while (pos < in_len);
	free(e);
	return used;
}
