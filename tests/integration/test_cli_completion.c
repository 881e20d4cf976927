/* `hoglake completion bash|zsh` and `hoglake manpage`, run as a user runs
 * them: the scripts are sourced by real bash and zsh and asked what may
 * come next at many points of a command line, and the man page is rendered
 * by groff. Every verb and every option the command's own --help lists
 * must be offered, and nothing else: the help text is the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#ifndef HOGLAKE_CLI_BIN
#error "HOGLAKE_CLI_BIN must be defined by the build"
#endif

/* No server is involved: every command here runs offline. */
static const char no_server[] = "http://127.0.0.1:1";
static char dir[256];

static int setup(void **state)
{
    (void)state;
    test_scratch_dir(dir, sizeof dir, "completion");
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir, "completion bash");
    cli_out_expect(&o, 0, "completion bash");
    test_write_file(dir, "hoglake.bash", o.out);
    cli_out_free(&o);
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir, "completion zsh");
    cli_out_expect(&o, 0, "completion zsh");
    test_write_file(dir, "_hoglake", o.out);
    cli_out_free(&o);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_remove_tree(dir);
    return 0;
}

/* ---- what --help says ---- */

enum { MAX_WORDS = 64 };

struct words {
    char *w[MAX_WORDS];
    int n;
};

static void words_free(struct words *ws)
{
    for (int i = 0; i < ws->n; i++)
        free(ws->w[i]);
    ws->n = 0;
}

static bool words_has(const struct words *ws, const char *w)
{
    for (int i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i], w) == 0)
            return true;
    return false;
}

static void words_add(struct words *ws, const char *w, size_t len)
{
    assert_true(ws->n < MAX_WORDS);
    ws->w[ws->n] = strndup(w, len);
    assert_non_null(ws->w[ws->n]);
    ws->n++;
}

/* The first word of each line of `section` ("commands:", "verbs:"): lines
 * indented by exactly two spaces up to the next blank line. */
static void section_words(const char *text, const char *section, struct words *out)
{
    const char *p = strstr(text, section);
    assert_non_null(p);
    p = strchr(p, '\n');
    while (p && p[1] != '\n' && p[1] != '\0') {
        p++;
        if (p[0] == ' ' && p[1] == ' ' && p[2] != ' ')
            words_add(out, p + 2, strcspn(p + 2, " \n"));
        p = strchr(p, '\n');
    }
}

/* Every "--name" that starts a line of an options list. */
static void option_words(const char *text, struct words *out)
{
    for (const char *p = strstr(text, "\n  --"); p; p = strstr(p + 1, "\n  --"))
        words_add(out, p + 3, strcspn(p + 3, " \n"));
}

static char *help_of(const char *args)
{
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir, "%s --help", args);
    cli_out_expect(&o, 0, args);
    char *text = strdup(o.out);
    cli_out_free(&o);
    return text;
}

/* ---- asking the shells ---- */

/* What the shell's completion offers after `line` (words separated by
 * single spaces; the last word, possibly empty, is the one completed). */
static void complete(const char *shell, const char *line, struct words *out)
{
    char script[2048], path[400];
    snprintf(path, sizeof path, "%s/ask.%s", dir, shell);
    if (strcmp(shell, "bash") == 0)
        snprintf(script, sizeof script,
                 "source '%s/hoglake.bash'\n"
                 "read -r -a COMP_WORDS <<< \"%s\"\n"
                 "case \"%s\" in *' ') COMP_WORDS+=(\"\") ;; esac\n"
                 "COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
                 "_hoglake\n"
                 "printf '%%s\\n' \"${COMPREPLY[@]}\"\n",
                 dir, line, line);
    else
        snprintf(script, sizeof script,
                 "compdef() { :; }\n"
                 "compadd() { [ \"$1\" = -- ] && shift; printf '%%s\\n' \"$@\"; }\n"
                 "_files() { printf '%%s\\n' '<files>'; }\n"
                 "source '%s/_hoglake'\n"
                 "words=(${(s: :)\"$(printf %%s '%s')\"})\n"
                 "case '%s' in *' ') words+=('') ;; esac\n"
                 "CURRENT=$#words\n"
                 "_hoglake\n",
                 dir, line, line);
    test_write_file(dir, strrchr(path, '/') + 1, script);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s %s '%s'", shell, strcmp(shell, "zsh") == 0 ? "-f" : "--norc",
             path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char buf[512];
    while (fgets(buf, sizeof buf, p))
        if (buf[0] != '\n')
            words_add(out, buf, strcspn(buf, "\n"));
    assert_int_equal(pclose(p), 0);
}

/* Fails unless the shell offers exactly `want` after `line`. */
static void expect_offers(const char *shell, const char *line, const struct words *want)
{
    struct words got = {0};
    complete(shell, line, &got);
    bool same = got.n == want->n;
    for (int i = 0; same && i < want->n; i++)
        same = words_has(&got, want->w[i]);
    if (!same) {
        fprintf(stderr, "%s after '%s' offers:", shell, line);
        for (int i = 0; i < got.n; i++)
            fprintf(stderr, " %s", got.w[i]);
        fprintf(stderr, "\nwanted:");
        for (int i = 0; i < want->n; i++)
            fprintf(stderr, " %s", want->w[i]);
        fail_msg("\n");
    }
    words_free(&got);
}

static void expect_offers_list(const char *shell, const char *line, const char *list)
{
    struct words want = {0};
    for (const char *p = list; *p; p += strspn(p, " ")) {
        size_t n = strcspn(p, " ");
        words_add(&want, p, n);
        p += n;
    }
    expect_offers(shell, line, &want);
    words_free(&want);
}

/* A verb's options as its help lists them, plus --json (taken anywhere). */
static void verb_options(const char *args, struct words *out)
{
    char *help = help_of(args);
    option_words(help, out);
    free(help);
    if (!words_has(out, "--json"))
        words_add(out, "--json", 6);
}

/* ---- tests ---- */

/* bash offers every command, every verb of a group and every option of
 * every verb that the help lists. */
static void bash_matches_help(void **state)
{
    (void)state;
    char *top = help_of("");
    struct words commands = {0};
    section_words(top, "commands:", &commands);
    free(top);
    assert_true(commands.n >= 18);
    expect_offers("bash", "hoglake ", &commands);
    int verbs_checked = 0;
    for (int c = 0; c < commands.n; c++) {
        char *help = help_of(commands.w[c]);
        bool group = strstr(help, "\nverbs:\n") != NULL;
        char line[256];
        if (!group) {
            struct words opts = {0};
            verb_options(commands.w[c], &opts);
            snprintf(line, sizeof line, "hoglake %s --", commands.w[c]);
            expect_offers("bash", line, &opts);
            words_free(&opts);
            free(help);
            verbs_checked++;
            continue;
        }
        struct words verbs = {0};
        section_words(help, "verbs:", &verbs);
        free(help);
        snprintf(line, sizeof line, "hoglake %s ", commands.w[c]);
        expect_offers("bash", line, &verbs);
        for (int v = 0; v < verbs.n; v++) {
            char args[160];
            snprintf(args, sizeof args, "%s %s", commands.w[c], verbs.w[v]);
            struct words opts = {0};
            verb_options(args, &opts);
            snprintf(line, sizeof line, "hoglake %s --", args);
            expect_offers("bash", line, &opts);
            words_free(&opts);
            verbs_checked++;
        }
        words_free(&verbs);
    }
    assert_true(verbs_checked >= 45);
    words_free(&commands);
}

/* Values of enumerated options, words after options that take a value,
 * prefixes, and global options before the command. */
static void bash_positions(void **state)
{
    (void)state;
    expect_offers_list("bash", "hoglake t", "table token");
    expect_offers_list("bash", "hoglake ta", "table");
    expect_offers_list("bash", "hoglake table cr", "create");
    expect_offers_list("bash", "hoglake append c.n.t f.csv --format ",
                       "csv tsv json jsonl parquet");
    expect_offers_list("bash", "hoglake append c.n.t f.csv --format j", "json jsonl");
    expect_offers_list("bash", "hoglake append c.n.t f.csv --format p", "parquet");
    /* A global option's value is not the command. */
    expect_offers_list("bash", "hoglake --server http://h:1 maintenance comp", "compact");
    /* An option's value is not the verb. */
    expect_offers_list("bash", "hoglake --json --token x table ",
                       "list create show drop alter partitions");
    /* After the verb: names and files are the shell's own (nothing here). */
    expect_offers_list("bash", "hoglake table create ", "");
    expect_offers_list("bash", "hoglake append c.n.t ", "");
}

static void zsh_positions(void **state)
{
    (void)state;
    expect_offers_list("zsh", "hoglake table ", "list create show drop alter partitions");
    expect_offers_list("zsh", "hoglake --server http://h:1 parquet ", "inspect cat convert verify");
    expect_offers_list("zsh", "hoglake append c.n.t f.csv --format ", "csv tsv json jsonl parquet");
    expect_offers_list("zsh", "hoglake append c.n.t ", "<files>");
    struct words opts = {0};
    verb_options("maintenance compact", &opts);
    expect_offers("zsh", "hoglake maintenance compact c --", &opts);
    words_free(&opts);
    char *top = help_of("");
    struct words commands = {0};
    section_words(top, "commands:", &commands);
    free(top);
    expect_offers("zsh", "hoglake ", &commands);
    words_free(&commands);
}

static void unknown_shell(void **state)
{
    (void)state;
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir, "completion fish");
    assert_int_equal(o.code, 2);
    expect_contains(o.err, "unknown verb 'fish'", "completion fish");
    cli_out_free(&o);
    /* Offline: no token or server is needed, even a bad token file. */
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir,
            "completion bash --json > /dev/null && HOGLAKE_TOKEN_FILE=/nonexistent %s manpage "
            "> /dev/null",
            HOGLAKE_CLI_BIN);
    cli_out_expect(&o, 0, "offline commands");
    cli_out_free(&o);
}

/* The man page renders without a groff warning and documents every
 * verb's usage line and every option the help lists. */
static void man_page(void **state)
{
    (void)state;
    struct cli_out o;
    cli_run(&o, HOGLAKE_CLI_BIN, no_server, dir, "manpage");
    cli_out_expect(&o, 0, "manpage");
    test_write_file(dir, "hoglake.1", o.out);
    cli_out_free(&o);
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && groff -man -Tutf8 -ww -z hoglake.1 2> warnings.txt && "
             "test ! -s warnings.txt && groff -man -Tutf8 -rLL=2000n hoglake.1 2>/dev/null | "
             "col -bx > hoglake.txt",
             dir);
    if (system(cmd) != 0) {
        char path[400];
        snprintf(path, sizeof path, "%s/warnings.txt", dir);
        char *w = test_read_text(path);
        fail_msg("groff: %s", w);
    }
    char path[400];
    snprintf(path, sizeof path, "%s/hoglake.txt", dir);
    char *page = test_read_text(path);
    expect_contains(page, "HOGLAKE(1)", "the man page");
    expect_contains(page, "EXIT STATUS", "the man page");
    char *top = help_of("");
    struct words commands = {0};
    section_words(top, "commands:", &commands);
    free(top);
    int usages = 0;
    for (int c = 0; c < commands.n; c++) {
        char *help = help_of(commands.w[c]);
        struct words verbs = {0};
        if (strstr(help, "\nverbs:\n"))
            section_words(help, "verbs:", &verbs);
        free(help);
        for (int v = 0; v <= verbs.n; v++) {
            if (verbs.n > 0 && v == verbs.n)
                break;
            char args[160];
            snprintf(args, sizeof args, "%s%s%s", commands.w[c], verbs.n ? " " : "",
                     verbs.n ? verbs.w[v] : "");
            char *vh = help_of(args);
            /* "usage: hoglake ..." is the man page's section title. */
            const char *u = strstr(vh, "usage: ");
            assert_non_null(u);
            char usage[600];
            snprintf(usage, sizeof usage, "%.*s", (int)strcspn(u + 7, "\n"), u + 7);
            expect_contains(page, usage, "the man page's usage lines");
            usages++;
            struct words opts = {0};
            option_words(vh, &opts);
            for (int i = 0; i < opts.n; i++)
                expect_contains(page, opts.w[i], args);
            words_free(&opts);
            free(vh);
            if (verbs.n == 0)
                break;
        }
        words_free(&verbs);
    }
    assert_true(usages >= 45);
    words_free(&commands);
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bash_matches_help), cmocka_unit_test(bash_positions),
        cmocka_unit_test(zsh_positions),     cmocka_unit_test(unknown_shell),
        cmocka_unit_test(man_page),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
