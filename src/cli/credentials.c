/* Which token the hoglake command sends (see cli_credentials in cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "util/datadir.h"
#include "util/strutil.h"

/* A token file is one line; anything longer is not a token file. */
enum { TOKEN_FILE_MAX = 4096 };

/* The file's first line, trimmed (malloc'd), or NULL with errno set
 * (EINVAL: empty or too long). */
static char *read_token_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = calloc(1, TOKEN_FILE_MAX + 1);
    size_t n = text ? fread(text, 1, TOKEN_FILE_MAX + 1, f) : 0;
    fclose(f);
    if (!text)
        return NULL;
    text[n <= TOKEN_FILE_MAX ? n : TOKEN_FILE_MAX] = '\0';
    text[strcspn(text, "\r\n")] = '\0';
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        text[--len] = '\0';
    if (n > TOKEN_FILE_MAX || len == 0) {
        explicit_bzero(text, TOKEN_FILE_MAX + 1);
        free(text);
        errno = EINVAL;
        return NULL;
    }
    return text;
}

bool cli_is_default_local_server(const char *url)
{
    static const char *const hosts[] = {"http://127.0.0.1:", "http://localhost:", "http://[::1]:"};
    const char *env_port = getenv("HOGLAKE_PORT");
    const char *port = env_port && *env_port ? env_port : "8080";
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        size_t n = strlen(hosts[i]);
        if (strncasecmp(url, hosts[i], n) != 0)
            continue;
        const char *rest = url + n;
        size_t pn = strlen(port);
        if (strncmp(rest, port, pn) == 0 && (rest[pn] == '\0' || strcmp(rest + pn, "/") == 0))
            return true;
    }
    return false;
}

int cli_credentials(const char *flag, const char *server_url, char **out)
{
    *out = NULL;
    const char *env = getenv("HOGLAKE_TOKEN");
    if (flag || (env && *env)) {
        if (!(*out = strdup(flag ? flag : env)))
            return cli_usage_error("out of memory");
        return EXIT_OK;
    }
    const char *file = getenv("HOGLAKE_TOKEN_FILE");
    if (file && *file) {
        if (!(*out = read_token_file(file)))
            return cli_usage_error("cannot read the token in HOGLAKE_TOKEN_FILE '%s': %s", file,
                                   errno == EINVAL ? "not one line of text" : strerror(errno));
        return EXIT_OK;
    }
    /* The local server's first admin token, for its own operator: only
     * where a server started with the same defaults listens, and only when
     * this user may read the file (it is 0600). */
    char dir[512], path[600];
    if (!cli_is_default_local_server(server_url) || datadir_default(dir, sizeof dir) != 0 ||
        snprintf(path, sizeof path, "%s/admin.token", dir) >= (int)sizeof path)
        return EXIT_OK;
    *out = read_token_file(path);
    return EXIT_OK;
}
