# lib/ crypto glue over OpenSSL 3 libcrypto.
