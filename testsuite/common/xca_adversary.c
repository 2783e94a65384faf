/*
 * See xca_adversary.h.  Every writer here mirrors what the decoder reads,
 * field by field, as MS-XCA describes it; xca_adv_new() refuses nothing,
 * so the tests decode each stream and want success.
 */
#include "testsuite/common/xca_adversary.h"
#include "lib/xca.h"

#include <stdint.h>
#include <string.h>
#include <talloc.h>

#define KIB 1024u

/* A growing byte buffer on talloc; a failed allocation sticks. */
struct abuf {
	uint8_t *p;
	size_t len, cap;
	bool failed;
};

static uint8_t *abuf_grow(struct abuf *b, size_t n)
{
	if (b->failed) {
		return NULL;
	}
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap - b->len < n) {
			cap *= 2;
		}
		p = talloc_realloc(NULL, b->p, uint8_t, cap);
		if (p == NULL) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void abuf_u8(struct abuf *b, unsigned v)
{
	uint8_t *p = abuf_grow(b, 1);

	if (p != NULL) {
		p[0] = (uint8_t)v;
	}
}

static void abuf_u16(struct abuf *b, uint32_t v)
{
	uint8_t *p = abuf_grow(b, 2);

	if (p != NULL) {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
	}
}

static void abuf_u32(struct abuf *b, uint32_t v)
{
	abuf_u16(b, v & 0xffff);
	abuf_u16(b, v >> 16);
}

/* Bytes that do not repeat soon (literals a decoder cannot shortcut). */
static uint8_t noise(size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u;

	return (uint8_t)(x >> 24 ^ x >> 11);
}

/* ---- LZNT1 (MS-XCA 2.5) ---- */

#define LZNT1_CHUNK 4096u

/* Bits of length - 3 in a token at chunk position u >= 1 (2.5). */
static unsigned lznt1_len_bits(size_t u)
{
	unsigned m = 4;

	while (((size_t)1 << m) < u) {
		m++;
	}
	return 16 - m;
}

/* A chunk's data: a flag byte before every 8 tokens. */
struct lznt1_w {
	uint8_t data[LZNT1_CHUNK + 64];
	size_t n, flag;
	unsigned ntok;
	size_t u;		/* output position in the chunk */
};

static void lznt1_tok(struct lznt1_w *c, bool match)
{
	if (c->ntok % 8 == 0) {
		c->flag = c->n++;
		c->data[c->flag] = 0;
	}
	if (match) {
		c->data[c->flag] |= (uint8_t)(1u << (c->ntok % 8));
	}
	c->ntok++;
}

static void lznt1_literal(struct lznt1_w *c, uint8_t v)
{
	lznt1_tok(c, false);
	c->data[c->n++] = v;
	c->u++;
}

static void lznt1_match(struct lznt1_w *c, size_t dist, size_t len)
{
	unsigned lb = lznt1_len_bits(c->u);
	uint32_t w = (uint32_t)((dist - 1) << lb) | (uint32_t)(len - 3);

	lznt1_tok(c, true);
	c->data[c->n++] = (uint8_t)w;
	c->data[c->n++] = (uint8_t)(w >> 8);
	c->u += len;
}

static void lznt1_emit(struct abuf *b, const struct lznt1_w *c)
{
	uint8_t *p;

	abuf_u16(b, 0x8000 | 0x3000 | (uint32_t)(c->n - 1));
	p = abuf_grow(b, c->n);
	if (p != NULL) {
		memcpy(p, c->data, c->n);
	}
}

/* One literal, then 1365 matches of 3: at the chunk's start or 1 back. */
static size_t lznt1_matches(struct abuf *b, size_t out, bool far)
{
	size_t chunks = out / LZNT1_CHUNK, k;
	struct lznt1_w c;

	for (k = 0; k < chunks; k++) {
		memset(&c, 0, sizeof(c));
		lznt1_literal(&c, 'a');
		while (c.u < LZNT1_CHUNK) {
			lznt1_match(&c, far ? c.u : 1, 3);
		}
		lznt1_emit(b, &c);
	}
	return chunks * LZNT1_CHUNK;
}

/* Flag bytes 0xC0: 6 literals and 2 matches, never 8 literals. */
static size_t lznt1_mixed(struct abuf *b, size_t out)
{
	size_t chunks = out / LZNT1_CHUNK, k;
	struct lznt1_w c;

	for (k = 0; k < chunks; k++) {
		memset(&c, 0, sizeof(c));
		while (LZNT1_CHUNK - c.u >= 12) {
			int i;

			for (i = 0; i < 6; i++) {
				lznt1_literal(&c, noise(k * LZNT1_CHUNK + c.u));
			}
			lznt1_match(&c, 5, 3);
			lznt1_match(&c, 2, 3);
		}
		while (c.u < LZNT1_CHUNK) {
			lznt1_literal(&c, noise(c.u));
		}
		lznt1_emit(b, &c);
	}
	return chunks * LZNT1_CHUNK;
}

/* Compressed chunks of one flag byte and no token: no output at all. */
static size_t lznt1_empty(struct abuf *b, size_t in)
{
	size_t k;

	for (k = 0; k < in / 3; k++) {
		abuf_u16(b, 0x8000 | 0x3000);
		abuf_u8(b, 0);
	}
	return 0;
}

/* ---- Plain LZ77 (MS-XCA 2.4) ---- */

struct lz77_w {
	struct abuf *b;
	size_t flag_pos;	/* SIZE_MAX: none yet */
	uint32_t flags;
	unsigned nflags;	/* 32: the next symbol needs a new word */
	size_t nibble;		/* the half-used length byte, or 0 */
	size_t out;
};

static void lz77_flush(struct lz77_w *w)
{
	if (!w->b->failed && w->flag_pos != SIZE_MAX) {
		uint8_t *p = w->b->p + w->flag_pos;

		p[0] = (uint8_t)w->flags;
		p[1] = (uint8_t)(w->flags >> 8);
		p[2] = (uint8_t)(w->flags >> 16);
		p[3] = (uint8_t)(w->flags >> 24);
	}
}

static void lz77_sym(struct lz77_w *w, bool match)
{
	if (w->nflags == 32) {
		lz77_flush(w);
		w->flag_pos = w->b->len;
		abuf_u32(w->b, 0);
		w->flags = 0;
		w->nflags = 0;
	}
	if (match) {
		w->flags |= (uint32_t)1 << (31 - w->nflags);
	}
	w->nflags++;
}

static void lz77_literal(struct lz77_w *w, uint8_t v)
{
	lz77_sym(w, false);
	abuf_u8(w->b, v);
	w->out++;
}

static void lz77_nibble(struct lz77_w *w, unsigned v)
{
	if (w->nibble == 0) {
		w->nibble = w->b->len + 1;	/* 0 means none */
		abuf_u8(w->b, v);
	} else {
		if (!w->b->failed) {
			w->b->p[w->nibble - 1] |= (uint8_t)(v << 4);
		}
		w->nibble = 0;
	}
}

/* A match of len < 10, or >= 25 through the 32-bit escape (2.4). */
static void lz77_match(struct lz77_w *w, size_t dist, size_t len)
{
	lz77_sym(w, true);
	if (len < 10) {
		abuf_u16(w->b, (uint32_t)((dist - 1) << 3 | (len - 3)));
	} else {
		abuf_u16(w->b, (uint32_t)((dist - 1) << 3 | 7));
		lz77_nibble(w, 15);
		abuf_u8(w->b, 255);
		abuf_u16(w->b, 0);
		abuf_u32(w->b, (uint32_t)(len - 3));
	}
	w->out += len;
}

enum lz77_kind { LZ77_NEAR, LZ77_FAR, LZ77_ESCAPES, LZ77_TURNS };

static size_t lz77_gen(struct abuf *b, size_t out, enum lz77_kind kind)
{
	struct lz77_w w = {.b = b, .nflags = 32, .flag_pos = SIZE_MAX};
	size_t step = kind == LZ77_ESCAPES ? 25 : 3;

	if (kind == LZ77_FAR) {
		while (w.out < 8192) {
			lz77_literal(&w, noise(w.out));
		}
	} else {
		lz77_literal(&w, 'a');
	}
	while (out - w.out >= step + 1) {
		if (kind == LZ77_TURNS) {
			lz77_literal(&w, noise(w.out));
		}
		lz77_match(&w, kind == LZ77_FAR ? 8192 : 1, step);
	}
	while (w.out < out) {
		lz77_literal(&w, noise(w.out));
	}
	lz77_flush(&w);
	return w.out;
}

/* ---- LZ77+Huffman (MS-XCA 2.2) ---- */

#define XH_BLOCK 65536u
#define XH_NSYM 512u

/* The bit writer of 2.1.4.3: two word slots reserved ahead, the next one
 * reserved when the bits cross into a new word, which is when the
 * decoder reads it; extension bytes go at the end as they come. */
struct xh_w {
	struct abuf *b;
	size_t w1, w2;
	uint32_t acc;
	unsigned n;
	uint8_t len[XH_NSYM];
	uint16_t code[XH_NSYM];
	size_t out, block_end;
};

static void xh_put16(struct xh_w *w, size_t at, uint32_t v)
{
	if (!w->b->failed) {
		w->b->p[at] = (uint8_t)v;
		w->b->p[at + 1] = (uint8_t)(v >> 8);
	}
}

static void xh_bits(struct xh_w *w, uint32_t code, unsigned len)
{
	w->acc = w->acc << len | code;
	w->n += len;
	if (w->n > 16) {
		w->n -= 16;
		xh_put16(w, w->w1, w->acc >> w->n);
		w->w1 = w->w2;
		w->w2 = w->b->len;
		abuf_u16(w->b, 0);
	}
}

/* Canonical codes (2.2.3): by length, then by symbol. */
static void xh_codes(struct xh_w *w)
{
	uint32_t count[16] = {0}, next[16], c = 0;
	unsigned l, s;

	for (s = 0; s < XH_NSYM; s++) {
		count[w->len[s]]++;
	}
	count[0] = 0;
	for (l = 1; l < 16; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
	}
	for (s = 0; s < XH_NSYM; s++) {
		if (w->len[s] != 0) {
			w->code[s] = (uint16_t)next[w->len[s]]++;
		}
	}
}

/* A block: its table, then its two first words. */
static void xh_block(struct xh_w *w)
{
	unsigned s;

	for (s = 0; s < XH_NSYM / 2; s++) {
		abuf_u8(w->b, w->len[2 * s] | w->len[2 * s + 1] << 4);
	}
	w->w1 = w->b->len;
	w->w2 = w->w1 + 2;
	abuf_u32(w->b, 0);
	w->acc = 0;
	w->n = 0;
	w->block_end = w->out + XH_BLOCK;
}

static void xh_flush(struct xh_w *w)
{
	xh_put16(w, w->w1, w->acc << (16 - w->n));
	xh_put16(w, w->w2, 0);
}

static void xh_sym(struct xh_w *w, unsigned sym)
{
	/* 2.2.4: a block ends once 64 KiB are out, before a symbol. */
	if (w->out >= w->block_end) {
		xh_flush(w);
		xh_block(w);
	}
	xh_bits(w, w->code[sym], w->len[sym]);
}

static void xh_literal(struct xh_w *w, uint8_t v)
{
	xh_sym(w, v);
	w->out++;
}

/* A match of len at off, its length escape as 2.2.4 reads it. */
static void xh_match(struct xh_w *w, size_t len, size_t off)
{
	unsigned hb = 0;
	size_t l3 = len - 3;

	while (((size_t)2 << hb) <= off) {
		hb++;
	}
	xh_sym(w, 256 + (unsigned)(l3 < 15 ? l3 : 15) + 16 * hb);
	if (l3 >= 15) {
		if (l3 - 15 < 255) {
			abuf_u8(w->b, (unsigned)(l3 - 15));
		} else {
			abuf_u8(w->b, 255);
			abuf_u16(w->b, (uint32_t)l3);
		}
	}
	xh_bits(w, (uint32_t)(off - ((size_t)1 << hb)), hb);
	w->out += len;
}

enum xh_kind { XH_TABLES, XH_LONG_LITERALS, XH_FAR, XH_NEAR };

static size_t xh_gen(struct abuf *b, size_t out, enum xh_kind kind)
{
	struct xh_w *w = talloc_zero(NULL, struct xh_w);
	size_t n = out / XH_BLOCK * XH_BLOCK, s;

	if (w == NULL) {
		b->failed = true;
		return 0;
	}
	w->b = b;
	switch (kind) {
	case XH_TABLES:
		/* 512 codes of 11 bits: 256 ten-bit prefixes, a subtable
		 * each (Kraft 1/4: an incomplete table is allowed). */
		memset(w->len, 11, sizeof(w->len));
		break;
	case XH_LONG_LITERALS:
		memset(w->len, 15, sizeof(w->len));
		break;
	case XH_FAR:
	case XH_NEAR:
		/* literals 9 bits, one match symbol 1 bit; EOF (256, which
		 * is also the near match) must have a code: 255 and it
		 * take 10 bits then (complete either way) */
		memset(w->len, 9, 256);
		w->len[kind == XH_FAR ? 256 + 15 * 16 : 256] = 1;
		if (kind == XH_FAR) {
			w->len[255] = 10;
			w->len[256] = 10;
		}
		break;
	}
	xh_codes(w);
	xh_block(w);
	switch (kind) {
	case XH_TABLES:
		/* each block one match (of 64 KiB), so one table per 64
		 * KiB and next to no symbols */
		xh_literal(w, 'x');
		while (w->out < n) {
			if (w->out == w->block_end) {
				xh_flush(w);
				xh_block(w);
			}
			xh_match(w, w->block_end - w->out, 1);
		}
		break;
	case XH_LONG_LITERALS:
		while (w->out < n) {
			xh_literal(w, noise(w->out));
		}
		break;
	case XH_FAR:
	case XH_NEAR:
		s = kind == XH_FAR ? 32768 : 1;
		while (w->out < s) {
			xh_literal(w, noise(w->out));
		}
		while (n - w->out >= 3) {
			xh_match(w, 3, s);
		}
		while (w->out < n) {
			xh_literal(w, noise(w->out));
		}
		break;
	}
	/* The last block ends with the EOF symbol unless it is full. */
	if (w->out < w->block_end) {
		xh_sym(w, 256);
	}
	xh_flush(w);
	talloc_free(w);
	return n;
}

/* ---- the list ---- */

static const struct {
	const char *name;
	const char *what;
	enum xca_adv_codec codec;
	int kind;
} advs[] = {
	{"lznt1-far-matches", "3-byte matches to the chunk's start",
	 XCA_ADV_LZNT1, 0},
	{"lznt1-near-matches", "3-byte matches 1 byte back", XCA_ADV_LZNT1, 1},
	{"lznt1-mixed", "6 literals and 2 matches per flag byte",
	 XCA_ADV_LZNT1, 2},
	{"lznt1-empty-chunks", "3-byte chunks with no output",
	 XCA_ADV_LZNT1, 3},
	{"lz77-near-matches", "3-byte matches 1 byte back", XCA_ADV_LZ77,
	 LZ77_NEAR},
	{"lz77-far-matches", "3-byte matches 8192 back", XCA_ADV_LZ77,
	 LZ77_FAR},
	{"lz77-long-escapes", "25-byte matches by the 32-bit escape",
	 XCA_ADV_LZ77, LZ77_ESCAPES},
	{"lz77-turns", "a literal and a match in turn", XCA_ADV_LZ77,
	 LZ77_TURNS},
	{"huff-tables", "a 256-subtable table per 64 KiB block",
	 XCA_ADV_HUFF, XH_TABLES},
	{"huff-long-literals", "literals of 15-bit codes", XCA_ADV_HUFF,
	 XH_LONG_LITERALS},
	{"huff-far-matches", "3-byte matches 32 KiB back", XCA_ADV_HUFF,
	 XH_FAR},
	{"huff-near-matches", "3-byte matches 1 byte back", XCA_ADV_HUFF,
	 XH_NEAR},
};

unsigned xca_adv_count(void)
{
	return sizeof(advs) / sizeof(advs[0]);
}

struct xca_adv *xca_adv_new(void *mem_ctx, unsigned i, size_t out)
{
	struct xca_adv *a;
	struct abuf b = {0};
	size_t n = 0;

	if (i >= xca_adv_count()) {
		return NULL;
	}
	a = talloc_zero(mem_ctx, struct xca_adv);
	if (a == NULL) {
		return NULL;
	}
	a->name = advs[i].name;
	a->what = advs[i].what;
	a->codec = advs[i].codec;
	switch (advs[i].codec) {
	case XCA_ADV_LZNT1:
		n = advs[i].kind == 3 ? lznt1_empty(&b, out)
		    : advs[i].kind == 2 ? lznt1_mixed(&b, out)
					: lznt1_matches(&b, out,
							advs[i].kind == 0);
		break;
	case XCA_ADV_LZ77:
		n = lz77_gen(&b, out, (enum lz77_kind)advs[i].kind);
		break;
	case XCA_ADV_HUFF:
		n = xh_gen(&b, out, (enum xh_kind)advs[i].kind);
		break;
	}
	if (b.failed) {
		talloc_free(b.p);
		talloc_free(a);
		return NULL;
	}
	a->in = talloc_steal(a, b.p);
	a->in_len = b.len;
	a->out_len = n;
	return a;
}

bool xca_adv_decode(const struct xca_adv *a, uint8_t *out)
{
	switch (a->codec) {
	case XCA_ADV_LZNT1:
		return xca_lznt1_decompress(a->in, a->in_len, out, a->out_len);
	case XCA_ADV_LZ77:
		return xca_lz77_decompress(a->in, a->in_len, out, a->out_len);
	case XCA_ADV_HUFF:
		return xca_huff_decompress(a->in, a->in_len, out, a->out_len);
	}
	return false;
}
