#!/usr/bin/python3
"""Shows which provider serves a program that never names one.

Like any unmodified application, this calls EVP_chacha20_poly1305() and the
other built-in cipher getters, encrypts one message with each, and asks the
context which provider the cipher came from. Run it with and without
OPENSSL_CONF=conf/stitch.cnf (and OPENSSL_MODULES=<dir of stitch.so>) to see
the configuration move ChaCha20 and ChaCha20-Poly1305 to stitch while
everything else stays with the default provider. With --require-stitch it
exits 1 unless both ChaCha ciphers came from stitch.

Only the standard library: libcrypto is called through ctypes.
"""

import ctypes
import sys

crypto = ctypes.CDLL("libcrypto.so.3")
vp, cp = ctypes.c_void_p, ctypes.c_char_p
for name, res, args in [
    ("EVP_CIPHER_CTX_new", vp, []),
    ("EVP_CIPHER_CTX_free", None, [vp]),
    ("EVP_EncryptInit_ex", ctypes.c_int, [vp, vp, vp, cp, cp]),
    ("EVP_EncryptUpdate", ctypes.c_int, [vp, cp, ctypes.POINTER(ctypes.c_int), cp, ctypes.c_int]),
    ("EVP_CIPHER_CTX_get0_cipher", vp, [vp]),
    ("EVP_CIPHER_get0_provider", vp, [vp]),
    ("EVP_CIPHER_get0_name", cp, [vp]),
    ("OSSL_PROVIDER_get0_name", cp, [vp]),
    ("OSSL_PROVIDER_get_params", ctypes.c_int, [vp, vp]),
]:
    fn = getattr(crypto, name)
    fn.restype, fn.argtypes = res, args

class OsslParam(ctypes.Structure):  # OSSL_PARAM, <openssl/core.h>
    _fields_ = [("key", cp), ("data_type", ctypes.c_uint), ("data", vp), ("data_size", ctypes.c_size_t),
                ("return_size", ctypes.c_size_t)]


OSSL_PARAM_UTF8_PTR = 6


def kernel_of(provider):
    """stitch's `kernel` provider param: the kernel set dispatch chose."""
    value = cp()
    params = (OsslParam * 2)(OsslParam(b"kernel", OSSL_PARAM_UTF8_PTR, ctypes.cast(ctypes.byref(value), vp), 0, 0),
                             OsslParam(None, 0, None, 0, 0))
    if not crypto.OSSL_PROVIDER_get_params(provider, params) or not value.value:
        return None
    return value.value.decode()


GETTERS = ["EVP_chacha20_poly1305", "EVP_chacha20", "EVP_aes_256_gcm"]
STITCH_GETTERS = {"EVP_chacha20_poly1305", "EVP_chacha20"}


def provider_of(getter):
    get = getattr(crypto, getter)
    get.restype = vp
    ctx = crypto.EVP_CIPHER_CTX_new()
    try:
        key, iv = bytes(32), bytes(16)
        if not crypto.EVP_EncryptInit_ex(ctx, get(), None, key, iv):
            return None, None, None
        out, n = ctypes.create_string_buffer(64), ctypes.c_int(0)
        if not crypto.EVP_EncryptUpdate(ctx, out, ctypes.byref(n), b"hello, stitch", 13):
            return None, None, None
        cipher = crypto.EVP_CIPHER_CTX_get0_cipher(ctx)
        provider = crypto.EVP_CIPHER_get0_provider(cipher)
        return crypto.EVP_CIPHER_get0_name(cipher).decode(), crypto.OSSL_PROVIDER_get0_name(provider).decode(), \
            provider
    finally:
        crypto.EVP_CIPHER_CTX_free(ctx)


def main():
    require_stitch = "--require-stitch" in sys.argv[1:]
    ok = True
    stitch = None
    for getter in GETTERS:
        name, provider, handle = provider_of(getter)
        if provider is None:
            ok = False
            print(f"  {getter + '()':26} failed")
            continue
        print(f"  {getter + '()':26} -> {name:18} from provider '{provider}'")
        if provider == "stitch":
            stitch = handle
        if require_stitch and getter in STITCH_GETTERS and provider != "stitch":
            ok = False
    if stitch:
        print(f"  stitch runs its '{kernel_of(stitch)}' kernels (provider param 'kernel')")
    if not ok:
        print("stitch is not serving ChaCha20-Poly1305 here" if require_stitch else "a cipher failed",
              file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
