#include "bench_auth.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *path)
{
    fprintf(stderr, "bench: the token file %s %s\n", path, what);
    exit(2);
}

/* The first line of path, trimmed, into out (size > 1). */
static void read_first_line(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench: cannot read the token file %s: %s\n", path, strerror(errno));
        exit(2);
    }
    size_t n = fread(out, 1, size - 1, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    out[n] = '\0';
    out[strcspn(out, "\r\n")] = '\0';
    size_t len = strlen(out);
    while (len > 0 && (out[len - 1] == ' ' || out[len - 1] == '\t'))
        out[--len] = '\0';
    if (len == 0 || (more && n == size - 1))
        die("does not hold one line of text", path);
}

void bench_auth_header(const char *token_file, char *out, size_t size)
{
    char secret[1025] = "";
    const char *env = getenv("HOGLAKE_TOKEN");
    const char *env_file = getenv("HOGLAKE_TOKEN_FILE");
    if (token_file)
        read_first_line(token_file, secret, sizeof secret);
    else if (env && *env)
        snprintf(secret, sizeof secret, "%s", env);
    else if (env_file && *env_file)
        read_first_line(env_file, secret, sizeof secret);
    out[0] = '\0';
    for (const char *p = secret; *p; p++) {
        if ((unsigned char)*p <= ' ' || *p == 0x7f) {
            fprintf(stderr, "bench: the token holds a space or a control character\n");
            exit(2);
        }
    }
    if (secret[0] && snprintf(out, size, "Authorization: Bearer %s", secret) >= (int)size) {
        fprintf(stderr, "bench: the token is too long\n");
        exit(2);
    }
    memset(secret, 0, sizeof secret);
}
