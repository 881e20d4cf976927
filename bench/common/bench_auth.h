/* The bearer token a benchmark sends to hoglaked. */
#ifndef HL_BENCH_AUTH_H
#define HL_BENCH_AUTH_H

#include <stddef.h>

/* The header line "Authorization: Bearer <secret>" into out, or "" when no
 * token is given. The secret is the first line of token_file (e.g.
 * <data-dir>/admin.token), else $HOGLAKE_TOKEN, else the first line of the
 * file $HOGLAKE_TOKEN_FILE names; there is deliberately no way to pass it on
 * a command line (visible to every user). Exits with status 2, saying why,
 * when a named file is unreadable or not one short line, or the secret
 * holds a space or control character. */
void bench_auth_header(const char *token_file, char *out, size_t size);

#endif
