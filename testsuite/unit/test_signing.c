/*
 * Unit tests for SMB2/3 signing, key derivation and the transform header,
 * against the published examples.  Where each vector comes from:
 *
 *  [ANATOMY] Microsoft Open Specifications blog, "SMB 2 and SMB 3 security
 *    in Windows 10: the anatomy of signing and cryptographic keys",
 *    appendix "Key derivation examples" (SMB 3.0 and SMB 3.1.1
 *    multichannel, including the preauth hash chain and the signed final
 *    SESSION_SETUP responses).  Its EncryptionKey/DecryptionKey are the
 *    CLIENT's; the server's are swapped (struct smb2_keys is server-side).
 *  [ENC30] same blog series, "Encryption in SMB 3.0: A protocol
 *    perspective" (AES-128-CCM WRITE request and response).
 *  [ENC311] same blog series, "SMB 3.1.1 Encryption in Windows 10"
 *    (AES-128-GCM WRITE request and response).
 *  [PYREF] no published example exists (HMAC-SHA256 SMB2 signing, AES-GMAC
 *    signing, AES-256 keys and ciphers): reference values computed
 *    independently with Python's hmac/hashlib and pyca/cryptography
 *    (AESGCM/AESCCM) from the MS-SMB2 3.1.4.1/3.1.4.2/3.1.4.3 rules, over
 *    the [ANATOMY] messages and keys, and confirmed with PyCryptodome
 *    (whose AES is not OpenSSL's).  The same scripts reproduce the
 *    [ANATOMY] CMAC signatures, which checks the method.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/crypto.h"
#include "lib/wire.h"
#include "smbd/conn/smb2_signing.h"
#include "smbd/conn/smb2_transform.h"

static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		char ch = *hex;
		int v;

		if (ch >= '0' && ch <= '9') {
			v = ch - '0';
		} else if (ch >= 'a' && ch <= 'f') {
			v = ch - 'a' + 10;
		} else if (ch >= 'A' && ch <= 'F') {
			v = ch - 'A' + 10;
		} else {
			continue;
		}
		if (hi < 0) {
			hi = v;
		} else {
			assert_true(n < max);
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	assert_int_equal(hi, -1);
	return n;
}

static void assert_hex(const uint8_t *got, size_t len, const char *want_hex)
{
	uint8_t want[1024];
	size_t n = unhex(want_hex, want, sizeof(want));

	assert_int_equal(n, len);
	assert_memory_equal(got, want, len);
}

static int setup(void **state)
{
	assert_true(crypto_init());
	return 0;
}

/* ---- [ANATOMY] data ---------------------------------------------------- */

#define PREAUTH_311_CH1                                                       \
	"0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB79"    \
	"28622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01"
#define PREAUTH_311_CH2                                                       \
	"EA3BF912B11CBFEC5B1889E8209614218687F82FA5294521AD3063425E49E88A"    \
	"10BD022124CE25123BC9111F52D9566BA88BF46344E6063DC5E3FF0389026F6C"

/* Final SESSION_SETUP response of the first channel, signed (CMAC). */
#define SESSSETUP_RESP_CH1                                                    \
	"FE534D4240000100000000000100800009000000000000000300000000000000"    \
	"FFFE0000000000001900000000100000EBE146DA120BA25FC3376A49DFE31BC1"    \
	"0900000048001D00A11B3019A0030A0100A3120410010000003B453CDC352416"    \
	"4200000000"
/* Same for the second (bound) channel. */
#define SESSSETUP_RESP_CH2                                                    \
	"FE534D4240000100000000000100800009000000000000000300000000000000"    \
	"FFFE00000000000019000000001000008D604217FFBACF40635BF9D872992150"    \
	"0900000048001D00A11B3019A0030A0100A312041001000000CFB046FC5D368E"    \
	"2200000000"

static void test_kdf_30(void **state)
{
	uint8_t sk[16];
	struct smb2_keys k;

	/* [ANATOMY] SMB 3.0 multichannel, master session. */
	unhex("7CD451825D0450D235424E44BA6E78CC", sk, 16);
	smb2_derive_keys(0x0300, sk, NULL, CRYPTO_AES128_CCM, &k);
	assert_hex(k.signing, 16, "0B7E9C5CAC36C0F6EA9AB275298CEDCE");
	assert_hex(k.application, 16, "BB23A4575AA26C721AF525AF15A87B4F");
	/* Client EncryptionKey (ServerIn) is our decryption key. */
	assert_hex(k.decryption, 16, "FAD27796665B313EBB578F388632B4F7");
	assert_hex(k.encryption, 16, "B0F0427F7CEB416D1D9DCC0CD4F99447");
	assert_int_equal(k.enc_key_len, 16);

	/* 3.0.2 uses the same labels. */
	smb2_derive_keys(0x0302, sk, NULL, CRYPTO_AES128_GCM, &k);
	assert_hex(k.signing, 16, "0B7E9C5CAC36C0F6EA9AB275298CEDCE");
	assert_int_equal(k.enc_key_len, 16);

	/* Second channel: only Channel.SigningKey is new. */
	unhex("4E01A2B313BCF660CC250BEF021AEDE6", sk, 16);
	smb2_derive_keys(0x0300, sk, NULL, CRYPTO_AES128_CCM, &k);
	assert_hex(k.signing, 16, "BA1A17DBBFEC349BCA105563D598952F");

	/* [ENC30] */
	unhex("B4546771B515F766A86735532DD6C4F0", sk, 16);
	smb2_derive_keys(0x0300, sk, NULL, CRYPTO_AES128_CCM, &k);
	assert_hex(k.decryption, 16, "261B72350558F2E9DCF613070383EDBF");
	assert_hex(k.encryption, 16, "8FE2B57EC34D2DB5B1A9727F526BBDB5");
}

static void test_kdf_311(void **state)
{
	uint8_t sk[16], pre[64];
	struct smb2_keys k;

	/* [ANATOMY] SMB 3.1.1 multichannel, first channel, AES-128-GCM. */
	unhex("270E1BA896585EEB7AF3472D3B4C75A7", sk, 16);
	unhex(PREAUTH_311_CH1, pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES128_GCM, &k);
	assert_hex(k.signing, 16, "73FE7A9A77BEF0BDE49C650D8CCB5F76");
	assert_hex(k.application, 16, "6D7AD7954E9EC61E907B4D473DC178FF");
	assert_hex(k.decryption, 16, "629BCBC54422A0F572B97F45989B6073");
	assert_hex(k.encryption, 16, "E2AF0DCEFAC68DA71A0DFBD0D1350D74");
	assert_int_equal(k.enc_key_len, 16);

	/* Second channel. */
	unhex("84B9DBB730116A8FA6E9889555C265F9", sk, 16);
	unhex(PREAUTH_311_CH2, pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES128_GCM, &k);
	assert_hex(k.signing, 16, "C962BCA1A9DD1697B030644199705431");

	/* [ENC311] */
	unhex("419FDDF34C1E001909D362AE7FB6AF79", sk, 16);
	unhex("B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDD"
	      "DBA7DB256BA2EA30E977F11F9B113247578E0E915C6D2A513B8F2FCA5707"
	      "DC8770",
	      pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES128_GCM, &k);
	assert_hex(k.decryption, 16, "A2F5E80E5D59103034F32E52F698E5EC");
	assert_hex(k.encryption, 16, "748C50868C90F302962A5C35F5F9A8BF");
}

/* [PYREF] L = 256 for the cipher keys with an AES-256 cipher. */
static void test_kdf_311_aes256(void **state)
{
	uint8_t sk[16], pre[64], full[32];
	struct smb2_keys k, k2;

	unhex("270E1BA896585EEB7AF3472D3B4C75A7", sk, 16);
	unhex(PREAUTH_311_CH1, pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES256_GCM, &k);
	assert_int_equal(k.enc_key_len, 32);
	assert_hex(k.signing, 16, "73FE7A9A77BEF0BDE49C650D8CCB5F76");
	assert_hex(k.encryption, 32,
		   "35952fed051bf2471af5f7acc63674b8"
		   "87a54b47af46959f7caff1ce537d7419");
	assert_hex(k.decryption, 32,
		   "049c27fd8a340262e32c643dea2ba507"
		   "af7a4c085fd2505aeffcbdeae6d6d8ab");
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES256_CCM, &k2);
	assert_memory_equal(&k, &k2, sizeof(k));

	/* The full key only changes the cipher keys, and only for AES-256. */
	memset(full, 0x5a, sizeof(full));
	smb2_derive_keys_full(0x0311, sk, full, 32, pre, CRYPTO_AES256_GCM,
			      &k2);
	assert_memory_equal(k.signing, k2.signing, 16);
	assert_memory_equal(k.application, k2.application, 16);
	assert_memory_not_equal(k.encryption, k2.encryption, 32);
	smb2_derive_keys_full(0x0311, sk, full, 32, pre, CRYPTO_AES128_GCM,
			      &k2);
	assert_hex(k2.encryption, 16, "E2AF0DCEFAC68DA71A0DFBD0D1350D74");
}

/* 2.0.2/2.1: the session key signs (MS-SMB2 3.3.5.5.3), no cipher keys. */
static void test_kdf_2x(void **state)
{
	uint8_t sk[16];
	struct smb2_keys k;
	int i;

	for (i = 0; i < 16; i++) {
		sk[i] = (uint8_t)i;
	}
	smb2_derive_keys(0x0210, sk, NULL, CRYPTO_AES128_CCM, &k);
	assert_memory_equal(k.signing, sk, 16);
	assert_int_equal(k.enc_key_len, 0);
	smb2_derive_keys(0x0202, sk, NULL, CRYPTO_AES128_CCM, &k);
	assert_memory_equal(k.signing, sk, 16);
}

/*
 * [ANATOMY] the preauth integrity hash chain: H(i) = SHA-512(H(i-1) ||
 * message), from 64 zero bytes, over NEGOTIATE request and response, then
 * the session's SESSION_SETUP request, response, request.
 */
static void test_preauth_hash(void **state)
{
	static const char *const msgs[] = {
		"FE534D42400001000000000000008000"
		"00000000000000000100000000000000"
		"FFFE0000000000000000000000000000"
		"00000000000000000000000000000000"
		"24000500000000003F000000ECD86F32"
		"6276024F9F7752B89BB33F3A70000000"
		"02000000020210020003020311030000"
		"0100260000000000010020000100FA49"
		"E6578F1F3A9F4CD3E9CC14A67AA884B3"
		"D05844E0E5A118225C15887F32FF0000"
		"0200060000000000020002000100",
		"FE534D42400001000000000000000100"
		"01000000000000000100000000000000"
		"FFFE0000000000000000000000000000"
		"00000000000000000000000000000000"
		"410001001103020039CBCAF329714942"
		"BDCE5D60F09AB3FB2F00000000008000"
		"0000800000008000D8DAE5ADCBAED001"
		"09094AB095AED00180004001C0010000"
		"6082013C06062B0601050502A0820130"
		"3082012CA01A3018060A2B0601040182"
		"3702021E060A2B06010401823702020A"
		"A282010C048201084E45474F45585453"
		"01000000000000006000000070000000"
		"7C7CC0FD06D6362D02DDE1CF343BFE29"
		"2900F49750B4AA97934D9C4296B26E51"
		"FD370471B235E15A50DAE15BD5489C87"
		"00000000000000006000000001000000"
		"00000000000000005C33530DEAF90D4D"
		"B2EC4AE3786EC3084E45474F45585453"
		"03000000010000004000000098000000"
		"7C7CC0FD06D6362D02DDE1CF343BFE29"
		"5C33530DEAF90D4DB2EC4AE3786EC308"
		"40000000580000003056A05430523027"
		"802530233121301F0603550403131854"
		"6F6B656E205369676E696E6720507562"
		"6C6963204B6579302780253023312130"
		"1F06035504031318546F6B656E205369"
		"676E696E67205075626C6963204B6579"
		"010026000000000001002000010060A3"
		"C3B95C3C7CCD51EC536648D9B3AC74C4"
		"83CA5B65385A251117BEB30712E50000020004000000000001000200",
		"FE534D42400001000000000001008000"
		"00000000000000000200000000000000"
		"FFFE0000000000000000000000000000"
		"00000000000000000000000000000000"
		"19000001010000000000000058004A00"
		"0000000000000000604806062B060105"
		"0502A03E303CA00E300C060A2B060104"
		"01823702020AA22A04284E544C4D5353"
		"500001000000978208E2000000000000"
		"00000000000000000000060380250000"
		"000F",
		"FE534D4240000100160000C001000100"
		"01000000000000000200000000000000"
		"FFFE0000000000001900000000100000"
		"00000000000000000000000000000000"
		"090000004800B300A181B03081ADA003"
		"0A0101A10C060A2B0601040182370202"
		"0AA281970481944E544C4D5353500002"
		"0000000C000C003800000015828AE20D"
		"1D8BA31179D008000000000000000050"
		"005000440000000A0092270000000F53"
		"005500540033003100310002000C0053"
		"005500540033003100310001000C0053"
		"005500540033003100310004000C0053"
		"005500540033003100310003000C0053"
		"005500540033003100310007000800A1A1F5ADCBAED00100000000",
		"FE534D42400001000000000001008000"
		"00000000000000000300000000000000"
		"FFFE0000000000001900000000100000"
		"00000000000000000000000000000000"
		"1900000101000000000000005800CF01"
		"0000000000000000A18201CB308201C7"
		"A0030A0101A28201AA048201A64E544C"
		"4D535350000300000018001800900000"
		"00EE00EE00A80000000C000C00580000"
		"001A001A0064000000120012007E0000"
		"001000100096010000158288E2060380"
		"250000000FECAC77A5F385A8BF9C38C7"
		"06EEEDDCD35300550054003300310031"
		"00610064006D0069006E006900730074"
		"007200610074006F0072004400520049"
		"00560045005200330031003100000000"
		"00000000000000000000000000000000"
		"000000000063078EB639FE03E20A231C"
		"3AE3BF23080101000000000000A1A1F5"
		"ADCBAED001BC4AD05F223CC90F000000"
		"0002000C005300550054003300310031"
		"0001000C005300550054003300310031"
		"0004000C005300550054003300310031"
		"0003000C005300550054003300310031"
		"0007000800A1A1F5ADCBAED001060004"
		"00020000000800300030000000000000"
		"000000000000300000B61FEFCAA857EA"
		"57BF1EDCEBF8974B8E0EBA5A6DFD9D07"
		"A31D11B548F8C9D0CC0A001000000000"
		"00000000000000000000000000090016"
		"0063006900660073002F005300550054"
		"00330031003100000000000000000000"
		"0000003B9BDFF38F5EE8F9663F11A0F4"
		"C03A78A31204100100000063775A9A5F"
		"D97F0600000000",
	};
	static const char *const hashes[] = {
		"DD94EFC5321BB618A2E208BA8920D2F4"
		"22992526947A409B5037DE1E0FE8C736"
		"2B8C47122594CDE0CE26AA9DFC8BCDBD"
		"E0621957672623351A7540F1E54A0426",
		"324BFA92A4F3A190E466EBEA08D9C110"
		"DC88BFED758D9846ECC6F541CC1D02AE"
		"3C94A79F36011E997E13F841B91B5095"
		"7AD07B19C8E2539C0B23FDAE09D2C513",
		"AC0B0F2B9986257700365E416D142A6E"
		"DC96DF03594A19E52A15F6BD0D041CD5"
		"D432F8ED42C55E33197A50C9EC00F146"
		"2B50C592211B1471A04B56088FDFD5F9",
		"2729E3440DFDDD839E37193F6E8F20C2"
		"0CEFB3469E453A70CD980EEC06B88357"
		"40A73760085633364C8989895ECE81BF"
		"102DEEB14D4B7D48AFA76901A7A38387",
		PREAUTH_311_CH1,
	};
	uint8_t h[64] = {0}, msg[1024], sk[16];
	struct smb2_keys k;
	size_t i;

	for (i = 0; i < 5; i++) {
		size_t n = unhex(msgs[i], msg, sizeof(msg));
		struct crypto_iov iov[2] = {{h, 64}, {msg, n}};

		crypto_sha512_iov(iov, 2, h);
		assert_hex(h, 64, hashes[i]);
	}
	/* ... and the signing key derived from the final value. */
	unhex("270E1BA896585EEB7AF3472D3B4C75A7", sk, 16);
	smb2_derive_keys(0x0311, sk, h, CRYPTO_AES128_GCM, &k);
	assert_hex(k.signing, 16, "73FE7A9A77BEF0BDE49C650D8CCB5F76");
}

/* Sign a copy of a message whose signature field holds junk. */
static void sign_and_compare(enum smb2_sign_algo algo, const uint8_t *key,
			     const uint8_t *msg, size_t len, const char *want)
{
	uint8_t copy[1024];

	assert_true(len <= sizeof(copy));
	memcpy(copy, msg, len);
	memset(copy + 48, 0xee, 16);
	smb2_sign(algo, key, copy, len);
	assert_hex(copy + 48, 16, want);
	assert_true(smb2_check_signature(algo, key, copy, len));
}

/* [ANATOMY] AES-128-CMAC signatures of the final SESSION_SETUP responses. */
static void test_sign_cmac(void **state)
{
	uint8_t msg[256], key[16], copy[256];
	size_t n;

	n = unhex(SESSSETUP_RESP_CH1, msg, sizeof(msg));
	unhex("73FE7A9A77BEF0BDE49C650D8CCB5F76", key, 16);
	memcpy(copy, msg, n);
	assert_true(smb2_check_signature(SMB2_SIGN_AES_CMAC, key, msg, n));
	assert_memory_equal(copy, msg, n); /* verification is read-only */
	sign_and_compare(SMB2_SIGN_AES_CMAC, key, msg, n,
			 "EBE146DA120BA25FC3376A49DFE31BC1");

	n = unhex(SESSSETUP_RESP_CH2, msg, sizeof(msg));
	unhex("C962BCA1A9DD1697B030644199705431", key, 16);
	assert_true(smb2_check_signature(SMB2_SIGN_AES_CMAC, key, msg, n));
	sign_and_compare(SMB2_SIGN_AES_CMAC, key, msg, n,
			 "8D604217FFBACF40635BF9D872992150");
	/* The other channel's key does not verify it. */
	unhex("73FE7A9A77BEF0BDE49C650D8CCB5F76", key, 16);
	assert_false(smb2_check_signature(SMB2_SIGN_AES_CMAC, key, msg, n));
}

/* [PYREF] HMAC-SHA256 (2.x) over the same message, session key as key. */
static void test_sign_hmac_sha256(void **state)
{
	uint8_t msg[256], key[16];
	size_t n = unhex(SESSSETUP_RESP_CH1, msg, sizeof(msg));

	unhex("270E1BA896585EEB7AF3472D3B4C75A7", key, 16);
	sign_and_compare(SMB2_SIGN_HMAC_SHA256, key, msg, n,
			 "69f4b33f052c75b5f93906a96746a04e");
}

/*
 * [PYREF] AES-GMAC (3.1.1 SIGNING_CAPABILITIES): the nonce is MessageId
 * then a word with bit 0 = sender is the server, bit 1 = CANCEL request.
 */
static void test_sign_gmac(void **state)
{
	/* A 68-byte client CANCEL request, MessageId 7, SessionId 0x..19. */
	static const char *cancel_hex =
		"FE534D4240000000000000000C000000"
		"00000000000000000700000000000000"
		"00000000000000001900000000100000"
		"00000000000000000000000000000000"
		"04000000";
	uint8_t msg[256], key[16];
	size_t n = unhex(SESSSETUP_RESP_CH1, msg, sizeof(msg));

	unhex("73FE7A9A77BEF0BDE49C650D8CCB5F76", key, 16);
	/* Server response, MessageId 3: role bit set. */
	sign_and_compare(SMB2_SIGN_AES_GMAC, key, msg, n,
			 "75d05bac99ff7fcc52a44c354381d559");

	n = unhex(cancel_hex, msg, sizeof(msg));
	sign_and_compare(SMB2_SIGN_AES_GMAC, key, msg, n,
			 "a2c6719accbc6dd22b95c46ba82079a3");
	/* The same header as an ECHO: no cancel bit, another signature. */
	msg[12] = 0x0d;
	sign_and_compare(SMB2_SIGN_AES_GMAC, key, msg, n,
			 "973e5f9291499a306407d8b4d98e02c0");
	/* Setting SERVER_TO_REDIR changes the nonce, so the signature. */
	smb2_sign(SMB2_SIGN_AES_GMAC, key, msg, n);
	msg[16] |= 1;
	assert_false(smb2_check_signature(SMB2_SIGN_AES_GMAC, key, msg, n));
}

/* Any flipped bit anywhere (header, signature or body) fails the check. */
static void test_sign_tamper(void **state)
{
	static const enum smb2_sign_algo algos[] = {
		SMB2_SIGN_HMAC_SHA256, SMB2_SIGN_AES_CMAC, SMB2_SIGN_AES_GMAC};
	uint8_t msg[256], key[16];
	size_t n = unhex(SESSSETUP_RESP_CH1, msg, sizeof(msg));
	size_t a, i;

	unhex("73FE7A9A77BEF0BDE49C650D8CCB5F76", key, 16);
	for (a = 0; a < 3; a++) {
		smb2_sign(algos[a], key, msg, n);
		assert_true(smb2_check_signature(algos[a], key, msg, n));
		for (i = 0; i < n; i++) {
			msg[i] ^= 0x01;
			assert_false(
				smb2_check_signature(algos[a], key, msg, n));
			msg[i] ^= 0x01;
		}
		/* Truncated or extended message. */
		assert_false(smb2_check_signature(algos[a], key, msg, n - 1));
		key[0] ^= 0x80;
		assert_false(smb2_check_signature(algos[a], key, msg, n));
		key[0] ^= 0x80;
	}
	/* Too short to hold a header: never verifies, never crashes. */
	assert_false(smb2_check_signature(SMB2_SIGN_AES_CMAC, key, msg, 63));
	assert_false(smb2_check_signature(SMB2_SIGN_AES_CMAC, key, msg, 0));
	smb2_sign(SMB2_SIGN_AES_CMAC, key, msg, 10); /* logged no-op */
}

/* A multi-part message signs the same as the contiguous one. */
static void test_sign_iov(void **state)
{
	uint8_t msg[256], key[16], sig[16];
	size_t n = unhex(SESSSETUP_RESP_CH1, msg, sizeof(msg));
	struct crypto_iov rest[3] = {
		{msg + 64, 8}, {NULL, 0}, {msg + 72, n - 72}};

	unhex("73FE7A9A77BEF0BDE49C650D8CCB5F76", key, 16);
	smb2_signature_iov(SMB2_SIGN_AES_CMAC, key, msg, rest, 3, sig);
	assert_hex(sig, 16, "EBE146DA120BA25FC3376A49DFE31BC1");
}

/* ---- encryption -------------------------------------------------------- */

/* [ENC30] client WRITE request: plaintext and the transform on the wire. */
#define ENC30_REQ_PLAIN                                                       \
	"FE534D4240000100000000000900400008000000000000000400000000000000"    \
	"FFFE0000010000001100001400E4080000000000000000000000000000000000"    \
	"3100700017000000000000000000000015010000390000020100000039020000"    \
	"00000000000000007000000000000000536D623320656E6372797074696F6E20"    \
	"74657374696E67"
#define ENC30_REQ_WIRE                                                        \
	"FD534D4281A286535415445DAE393921E44FA42E66E69A111892584FB5ED524A"    \
	"744DA3EE87000000000001001100001400E4080025C8FEE16605A437832D1CD5"    \
	"2DA9F4645333482A175FE5384563F45FCDAFAEF38BC62BA4D5C62897996625A4"    \
	"4C29BE5658DE2E6117585779E7B59FFD971278D08580D7FA899E410E910EABF5"    \
	"AA1DB43050B33B49182637759AC15D84BFCDF5B6B238993C0F4CF4D6012023F6"    \
	"C627297075D84B7803912D0A9639634453595EF3E33FFE4E7AC2AB"
/* [ENC30] the server's WRITE response. */
#define ENC30_RESP_WIRE                                                       \
	"FD534D42A6015530A18F6D9AFFE22AFAE8E66484860000000000000011000014"    \
	"00E4080050000000000001001100001400E40800DBF46435C5F14169293CE079"    \
	"E344479BF670227E49873F458672C3098DAC467DD5809F369D67409166515787"    \
	"1483E01F7BECD02064EAC3E235F913668BBC2F097980D4B378F1993EFF6E60D1"    \
	"77309E5B"
#define ENC30_RESP_PLAIN                                                      \
	"FE534D4240000100000000000900210009000000000000000400000000000000"    \
	"FFFE0000010000001100001400E4080000000000000000000000000000000000"    \
	"11000000170000000000000000000000"

static void test_transform_30(void **state)
{
	uint8_t sk[16], buf[512], plain[512], tag[16];
	struct smb2_keys k;
	uint64_t sid;
	uint32_t olen;
	size_t n, pn;

	unhex("B4546771B515F766A86735532DD6C4F0", sk, 16);
	smb2_derive_keys(0x0300, sk, NULL, CRYPTO_AES128_CCM, &k);

	/* The server decrypts the client's request with ServerIn. */
	n = unhex(ENC30_REQ_WIRE, buf, sizeof(buf));
	assert_int_equal(smb2_transform_parse(buf, n, &sid, &olen),
			 NT_STATUS_OK);
	assert_true(sid == 0x8e40014000011ULL);
	assert_int_equal(olen, n - 52);
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES128_CCM,
						k.decryption, buf, n),
			 NT_STATUS_OK);
	pn = unhex(ENC30_REQ_PLAIN, plain, sizeof(plain));
	assert_int_equal(pn, n - 52);
	assert_memory_equal(buf + 52, plain, pn);

	/*
	 * Re-encrypt with the AEAD directly: the sender put non-zero bytes
	 * in the reserved tail of Nonce, which smb2_transform_encrypt would
	 * zero, so take the AAD from the wire header.
	 */
	n = unhex(ENC30_REQ_WIRE, buf, sizeof(buf));
	assert_true(crypto_aead_encrypt(CRYPTO_AES128_CCM, k.decryption,
					buf + 20, buf + 20, 32, plain, pn,
					tag));
	assert_memory_equal(tag, buf + 4, 16);
	assert_memory_equal(plain, buf + 52, pn);

	/* The response was encrypted with ServerOut: our encryption key. */
	n = unhex(ENC30_RESP_WIRE, buf, sizeof(buf));
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES128_CCM,
						k.encryption, buf, n),
			 NT_STATUS_OK);
	assert_hex(buf + 52, n - 52, ENC30_RESP_PLAIN);
	/* ... and does not decrypt with the other direction's key. */
	n = unhex(ENC30_RESP_WIRE, buf, sizeof(buf));
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES128_CCM,
						k.decryption, buf, n),
			 NT_STATUS_ACCESS_DENIED);
}

/* [ENC311] AES-128-GCM WRITE request and response. */
#define ENC311_REQ_PLAIN                                                      \
	"FE534D4240000100000000000900010008000000000000000500000000000000"    \
	"FFFE000001000000250000000010000000000000000000000000000000000000"    \
	"3100700017000000000000000000000006000000040000000100000004000000"    \
	"00000000000000007000000000000000536D623320656E6372797074696F6E20"    \
	"74657374696E67"
#define ENC311_REQ_WIRE                                                       \
	"FD534D42BD73D97D2BC9001BCAFAC0FDFF5FEEBCC7D6822D269CAF48904C664C"    \
	"00000000870000000000010025000000001000006ECDD2A7AFC7B47763057A04"    \
	"1B8FD4DAFFE990B70C9E09D36C084E02D14EF247F8BDE38ACF6256F8B1D3B56F"    \
	"77FBDEB312FEA5E92CBCC1ED8FB2EBBFAA75E49A4A394BB44576545567C24D4C"    \
	"014D47C9FBDFDAFD2C4F9B72F8D256452620A299F48E29E53D6B61D1C13A19E9"    \
	"1AF013F00D17E3ABC2FC3D36C8C1B6B93973253852DBD442E46EE8"
#define ENC311_RESP_WIRE                                                      \
	"FD534D42ACBE1CB7ED343ADF1725EF144D90D4B0E06831DD2E8EB7B400000000"    \
	"000000005000000000000100250000000010000026BBBF949983A6C1C796559D"    \
	"0F2C510CB651D1F7B6AC8DED32A2A0B8F2D793A815C6F6B848D69767A215841A"    \
	"42D400AE6DDB5F0B44173A014973321FDD7950DA6179159B82E03C9E18A050FF"    \
	"0EA1C967"
#define ENC311_RESP_PLAIN                                                     \
	"FE534D4240000100000000000900010001000000000000000500000000000000"    \
	"FFFE000001000000250000000010000000000000000000000000000000000000"    \
	"11000000170000000000000000000000"

static void encrypt_and_compare(enum crypto_cipher c, const uint8_t *key,
				uint64_t sid, const char *nonce_hex,
				const char *plain_hex, const char *wire_hex)
{
	uint8_t buf[512], nonce[16] = {0};
	size_t pn;

	unhex(nonce_hex, nonce, 16);
	/* Junk in the nonce tail must not reach the wire. */
	memset(nonce + crypto_cipher_nonce_len(c), 0xcc,
	       16 - crypto_cipher_nonce_len(c));
	pn = unhex(plain_hex, buf + 52, sizeof(buf) - 52);
	assert_true(smb2_transform_encrypt(c, key, sid, nonce, buf, buf + 52,
					   pn));
	assert_hex(buf, 52 + pn, wire_hex);
}

static void test_transform_311(void **state)
{
	uint8_t sk[16], pre[64], buf[512];
	struct smb2_keys k;
	size_t n;

	unhex("419FDDF34C1E001909D362AE7FB6AF79", sk, 16);
	unhex("B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDD"
	      "DBA7DB256BA2EA30E977F11F9B113247578E0E915C6D2A513B8F2FCA5707"
	      "DC8770",
	      pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES128_GCM, &k);

	/* Exactly what the server sends (our encryption key)... */
	encrypt_and_compare(CRYPTO_AES128_GCM, k.encryption, 0x100000000025ULL,
			    "E06831DD2E8EB7B400000000", ENC311_RESP_PLAIN,
			    ENC311_RESP_WIRE);
	/* ... and what the client sent (the server's decryption key). */
	encrypt_and_compare(CRYPTO_AES128_GCM, k.decryption, 0x100000000025ULL,
			    "C7D6822D269CAF48904C664C", ENC311_REQ_PLAIN,
			    ENC311_REQ_WIRE);

	n = unhex(ENC311_REQ_WIRE, buf, sizeof(buf));
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES128_GCM,
						k.decryption, buf, n),
			 NT_STATUS_OK);
	assert_hex(buf + 52, n - 52, ENC311_REQ_PLAIN);
}

/* [PYREF] AES-256-CCM and AES-256-GCM transforms of an ECHO request. */
static void test_transform_aes256(void **state)
{
	static const char *echo =
		"fe534d4240000000000000000d000c00"
		"00000000000000000700000000000000"
		"00000000000000001900000000100000"
		"00000000000000000000000000000000"
		"04000000";
	uint8_t sk[16], pre[64], buf[512];
	struct smb2_keys k;
	size_t n;

	unhex("270E1BA896585EEB7AF3472D3B4C75A7", sk, 16);
	unhex(PREAUTH_311_CH1, pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES256_CCM, &k);
	encrypt_and_compare(
		CRYPTO_AES256_CCM, k.encryption, 0x100000000019ULL,
		"0102030405060708090a0b", echo,
		"fd534d42"
		"3aa37a13c7475eec9c5d3f56f56d8f5d"
		"0102030405060708090a0b0000000000"
		"44000000000001001900000000100000"
		"bc26da1ff4ef64755f7dca1409b8aa07ea4dbb31c114c911b98dbaf25055"
		"4c369835745ec5e675c4d449683b558f0114ed3945a5b83cc295544b8652"
		"df417872ef5d03b2");
	encrypt_and_compare(
		CRYPTO_AES256_GCM, k.encryption, 0x100000000019ULL,
		"0102030405060708090a0b0c", echo,
		"fd534d42"
		"0df67b75c16fa85517fe051283bd28aa"
		"0102030405060708090a0b0c00000000"
		"44000000000001001900000000100000"
		"fb791f899321c9ed75bec833a98d947fec7dc5570eacd8cda56a44d1957c"
		"c78d7f0ca939a1b0934c800cfc846ae5e4bcef1893269e2b28f073fe4c17"
		"e2320812da1b8122");
	/* Round trip through decrypt (the client would use this key). */
	n = 52 + unhex(echo, buf + 52, sizeof(buf) - 52);
	memset(pre, 7, 16);
	assert_true(smb2_transform_encrypt(CRYPTO_AES256_GCM, k.encryption, 1,
					   pre, buf, buf + 52, n - 52));
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES256_GCM,
						k.encryption, buf, n),
			 NT_STATUS_OK);
	assert_hex(buf + 52, n - 52, echo);
}

static void test_transform_parse_errors(void **state)
{
	uint8_t buf[512], orig[512];
	uint64_t sid;
	uint32_t olen;
	size_t n = unhex(ENC311_REQ_WIRE, orig, sizeof(orig));
	size_t i;

	memcpy(buf, orig, n);
	/* Every length short of header + 1 byte. */
	for (i = 0; i <= 52; i++) {
		assert_int_equal(smb2_transform_parse(buf, i, &sid, &olen),
				 NT_STATUS_INVALID_PARAMETER);
	}
	assert_int_equal(smb2_transform_parse(NULL, 0, NULL, NULL),
			 NT_STATUS_INVALID_PARAMETER);
	/* OriginalMessageSize must match the bytes that follow. */
	assert_int_equal(smb2_transform_parse(buf, n - 1, &sid, &olen),
			 NT_STATUS_INVALID_PARAMETER);
	put_le32(buf + 36, 0xffffffff);
	assert_int_equal(smb2_transform_parse(buf, n, &sid, &olen),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(buf, orig, n);
	buf[0] = 0xfe; /* a plain SMB2 header is not a transform */
	assert_int_equal(smb2_transform_parse(buf, n, &sid, &olen),
			 NT_STATUS_INVALID_PARAMETER);
	memcpy(buf, orig, n);
	put_le16(buf + 42, 2);
	assert_int_equal(smb2_transform_parse(buf, n, &sid, &olen),
			 NT_STATUS_INVALID_PARAMETER);
	/* A bad cipher id. */
	memcpy(buf, orig, n);
	assert_int_equal(smb2_transform_decrypt((enum crypto_cipher)9, buf,
						buf, n),
			 NT_STATUS_INVALID_PARAMETER);
	assert_false(smb2_transform_encrypt((enum crypto_cipher)0, buf, 0,
					    buf, buf, buf + 52, 1));
}

/* Any flipped bit in header or ciphertext fails decryption. */
static void test_transform_tamper(void **state)
{
	uint8_t sk[16], pre[64], buf[512], orig[512];
	struct smb2_keys k;
	size_t n = unhex(ENC311_REQ_WIRE, orig, sizeof(orig));
	size_t i;

	unhex("419FDDF34C1E001909D362AE7FB6AF79", sk, 16);
	unhex("B23F3CBFD69487D9832B79B1594A367CDD950909B774C3A4C412B4FCEA9EDD"
	      "DBA7DB256BA2EA30E977F11F9B113247578E0E915C6D2A513B8F2FCA5707"
	      "DC8770",
	      pre, 64);
	smb2_derive_keys(0x0311, sk, pre, CRYPTO_AES128_GCM, &k);
	for (i = 0; i < n; i++) {
		NTSTATUS st;

		memcpy(buf, orig, n);
		buf[i] ^= 0x10;
		st = smb2_transform_decrypt(CRYPTO_AES128_GCM, k.decryption,
					    buf, n);
		assert_int_not_equal(st, NT_STATUS_OK);
		if (i >= 52) {
			/* Unauthenticated plaintext never stays behind. */
			size_t j;

			for (j = 52; j < n; j++) {
				assert_int_equal(buf[j], 0);
			}
		}
	}
	/* The wrong cipher with the right key fails too. */
	memcpy(buf, orig, n);
	assert_int_equal(smb2_transform_decrypt(CRYPTO_AES128_CCM,
						k.decryption, buf, n),
			 NT_STATUS_ACCESS_DENIED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kdf_30),
		cmocka_unit_test(test_kdf_311),
		cmocka_unit_test(test_kdf_311_aes256),
		cmocka_unit_test(test_kdf_2x),
		cmocka_unit_test(test_preauth_hash),
		cmocka_unit_test(test_sign_cmac),
		cmocka_unit_test(test_sign_hmac_sha256),
		cmocka_unit_test(test_sign_gmac),
		cmocka_unit_test(test_sign_tamper),
		cmocka_unit_test(test_sign_iov),
		cmocka_unit_test(test_transform_30),
		cmocka_unit_test(test_transform_311),
		cmocka_unit_test(test_transform_aes256),
		cmocka_unit_test(test_transform_parse_errors),
		cmocka_unit_test(test_transform_tamper),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
