/*
 * Test code only: an LD_PRELOAD shim for the stock OpenSSH `ssh` client
 * (9.2, cipher-chachapoly-libcrypto.c) that records every packet the client
 * receives with chacha20-poly1305@openssh.com, so that stitch can be held to
 * OpenSSH's own construction (openssh_capture_verify.cpp).
 *
 * How OpenSSH drives libcrypto, and what is taken from each call:
 *   chachapoly_new:  EVP_CipherInit(main,   EVP_chacha20(), key,      NULL, 1)
 *                    EVP_CipherInit(header, EVP_chacha20(), key + 32, NULL, 1)
 *                    -> K_2 and K_1; the header is the init whose key pointer
 *                       is the previous main key pointer + 32.
 *   get_length:      EVP_CipherInit(header, NULL, NULL, iv, 0) + EVP_Cipher(4)
 *                    -> enc = 0 only happens on the receiving side: marks the
 *                       pair as the receive direction.
 *   chachapoly_crypt (receive): main at counter 0 -> Poly1305 key, the tag is
 *                    checked with OpenSSH's own poly1305.c, the header
 *                    decrypts the length into dest[0..4), then
 *                    EVP_CipherInit(main, NULL, NULL, iv with counter 1, 1)
 *                    EVP_Cipher(main, dest + 4, src + 4, len)
 *                    -> in that call, src - 4 .. src + len + 16 is the wire
 *                       packet (length, ciphertext, tag, already authenticated
 *                       by OpenSSH), the IV's bytes 8..15 the BE64 sequence
 *                       number, and after the call dest - 4 .. dest + len the
 *                       plaintext (length, payload).
 *
 * Records go to the file named by STITCH_SSH_CAPTURE, each:
 *   "SSHPKT01" | u64 seq | u32 len | key[64] = K_2 ‖ K_1 | wire[4 + len + 16] | plain[4 + len]
 * (integers in host order). Nothing else in ssh changes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kSlots = 16, kMaxRecords = 100000 };

struct slot {
    const EVP_CIPHER_CTX *ctx;
    unsigned char key[32];
    const unsigned char *key_ptr; /* where OpenSSH's key material was, to pair main with header */
    struct slot *header;          /* main: its header context */
    struct slot *main;            /* header: its main context */
    int receive;
    unsigned char iv[16];
};

static struct slot slots[kSlots];
static const unsigned char *last_main_key;
static struct slot *last_main;
static FILE *capture;
static long records;

static void *next_fn(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "openssh_capture_shim: no %s\n", name);
        abort();
    }
    return f;
}

static struct slot *find(const EVP_CIPHER_CTX *ctx, int create)
{
    struct slot *free_slot = NULL;
    for (int i = 0; i < kSlots; i++) {
        if (slots[i].ctx == ctx)
            return &slots[i];
        if (slots[i].ctx == NULL && free_slot == NULL)
            free_slot = &slots[i];
    }
    if (!create)
        return NULL;
    if (free_slot == NULL) /* rekeyed many times: reuse the oldest */
        free_slot = &slots[0];
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->ctx = ctx;
    return free_slot;
}

static void forget_pairs_of(struct slot *s)
{
    for (int i = 0; i < kSlots; i++) {
        if (slots[i].header == s)
            slots[i].header = NULL;
        if (slots[i].main == s)
            slots[i].main = NULL;
    }
}

int EVP_CipherInit(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, const unsigned char *key,
                   const unsigned char *iv, int enc)
{
    static int (*next)(EVP_CIPHER_CTX *, const EVP_CIPHER *, const unsigned char *, const unsigned char *, int);
    if (next == NULL)
        next = next_fn("EVP_CipherInit");

    if (cipher != NULL && key != NULL && EVP_CIPHER_get_nid(cipher) == NID_chacha20) {
        struct slot *s = find(ctx, 1);
        forget_pairs_of(s);
        memset(s, 0, sizeof(*s));
        s->ctx = ctx;
        memcpy(s->key, key, 32);
        s->key_ptr = key;
        if (last_main != NULL && key == last_main_key + 32 && last_main->header == NULL) {
            last_main->header = s;
            s->main = last_main;
        } else {
            last_main = s;
            last_main_key = key;
        }
    } else if (cipher == NULL && iv != NULL) {
        struct slot *s = find(ctx, 0);
        if (s != NULL) {
            memcpy(s->iv, iv, 16);
            if (enc == 0 && s->main != NULL) /* get_length: only the receiver does this */
                s->main->receive = s->receive = 1;
        }
    }
    return next(ctx, cipher, key, iv, enc);
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

int EVP_Cipher(EVP_CIPHER_CTX *ctx, unsigned char *out, const unsigned char *in, unsigned int inl)
{
    static int (*next)(EVP_CIPHER_CTX *, unsigned char *, const unsigned char *, unsigned int);
    if (next == NULL)
        next = next_fn("EVP_Cipher");

    struct slot *s = find(ctx, 0);
    const int payload = s != NULL && s->receive && s->header != NULL && le64(s->iv) == 1 && inl > 0;
    if (!payload || records >= kMaxRecords)
        return next(ctx, out, in, inl);

    const size_t wire_len = 4 + (size_t)inl + 16, plain_len = 4 + (size_t)inl;
    unsigned char *wire = malloc(wire_len);
    if (wire == NULL)
        return next(ctx, out, in, inl);
    memcpy(wire, in - 4, wire_len); /* before the call: it may write over in when in == out */
    const int rc = next(ctx, out, in, inl);

    if (capture == NULL) {
        const char *path = getenv("STITCH_SSH_CAPTURE");
        if (path != NULL)
            capture = fopen(path, "wb");
    }
    if (capture != NULL && rc >= 0) {
        const uint64_t seq = be64(s->iv + 8);
        const uint32_t len = inl;
        fwrite("SSHPKT01", 1, 8, capture);
        fwrite(&seq, sizeof seq, 1, capture);
        fwrite(&len, sizeof len, 1, capture);
        fwrite(s->key, 1, 32, capture);         /* K_2 */
        fwrite(s->header->key, 1, 32, capture); /* K_1 */
        fwrite(wire, 1, wire_len, capture);
        fwrite(out - 4, 1, plain_len, capture);
        fflush(capture);
        records++;
    }
    free(wire);
    return rc;
}
