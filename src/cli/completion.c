/* `hoglake completion bash|zsh`: completion scripts generated from the
 * command, verb and option tables (commands.h), so they offer exactly what
 * the parser accepts.
 *
 * Both scripts share one core of portable shell functions (bash and zsh
 * run it alike): _hoglake_spec CMD VERB lists a verb's options, a trailing
 * '=' marking those that take a value; _hoglake_choices lists an option's
 * values when its placeholder enumerates them (csv|tsv|jsonl);
 * _hoglake_candidates walks the words before the cursor and sets
 * _hoglake_reply to what may come next, empty for a file or a name. Each
 * shell's front end only reads its own line and offers the words. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

/* Whether text is safe inside the script's double quotes and case
 * patterns: names and placeholders are plain words, checked anyway so a
 * future table entry cannot break the script. */
static bool plain(const char *s)
{
    return strcspn(s, "\"'`$\\ \t\n()*?[]") == strlen(s);
}

/* "--name" or "--name=" per option, then, for a verb, --help and the
 * --json every verb takes (its own, or the global one after the
 * command). */
static void print_opts(const struct cli_opt *opts, size_t n, bool global)
{
    bool json = false;
    for (size_t i = 0; i < n; i++) {
        if (plain(opts[i].name))
            printf("--%s%s ", opts[i].name, opts[i].takes_value ? "=" : "");
        json = json || strcmp(opts[i].name, "json") == 0;
    }
    if (!global)
        printf("--help%s", json ? "" : " --json");
}

static void print_spec_case(const char *cmd, const char *verb, const struct cli_opt *opts, size_t n)
{
    printf("        \"%s %s\") echo \"", cmd, verb);
    print_opts(opts, n, false);
    printf("\" ;;\n");
}

/* The values of options whose placeholder is a|b|c. */
static void print_choices_case(const char *cmd, const char *verb, const struct cli_opt *opts,
                               size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ph[128];
        cli_opt_placeholder(&opts[i], ph, sizeof ph);
        if (!strchr(ph, '|') || !plain(opts[i].name))
            continue;
        printf("        \"%s %s --%s\") echo \"", cmd, verb, opts[i].name);
        /* Literal values only: "SPEC|none" offers none. */
        bool first = true;
        for (char *tok = strtok(ph, "|"); tok; tok = strtok(NULL, "|")) {
            if (!plain(tok) || strpbrk(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
                continue;
            printf("%s%s", first ? "" : " ", tok);
            first = false;
        }
        printf("\" ;;\n");
    }
}

static void print_core(void)
{
    printf("_hoglake_commands=\"");
    for (size_t i = 0; i < cli_ncommands; i++)
        printf("%s%s", i ? " " : "", cli_commands[i].name);
    printf("\"\n\n_hoglake_verbs() {\n    case \"$1\" in\n");
    for (size_t i = 0; i < cli_ncommands; i++) {
        struct cli_command_info info = cli_command_describe(&cli_commands[i]);
        if (!info.group)
            continue;
        printf("        %s) echo \"", cli_commands[i].name);
        for (size_t v = 0; v < info.nverbs; v++)
            printf("%s%s", v ? " " : "", info.verbs[v].name);
        printf("\" ;;\n");
    }
    printf("    esac\n}\n\n_hoglake_spec() {\n    case \"$1 $2\" in\n        \" \") echo \"");
    print_opts(cli_global_opts, cli_nglobal_opts, true);
    printf("\" ;;\n");
    for (size_t i = 0; i < cli_ncommands; i++) {
        struct cli_command_info info = cli_command_describe(&cli_commands[i]);
        for (size_t v = 0; v < info.nverbs; v++)
            print_spec_case(cli_commands[i].name, info.group ? info.verbs[v].name : "",
                            info.verbs[v].opts, info.verbs[v].nopts);
    }
    printf("    esac\n}\n\n_hoglake_choices() {\n    case \"$1 $2 $3\" in\n");
    for (size_t i = 0; i < cli_ncommands; i++) {
        struct cli_command_info info = cli_command_describe(&cli_commands[i]);
        for (size_t v = 0; v < info.nverbs; v++)
            print_choices_case(cli_commands[i].name, info.group ? info.verbs[v].name : "",
                               info.verbs[v].opts, info.verbs[v].nopts);
    }
    printf("    esac\n}\n\n"
           "# _hoglake_candidates CUR WORD...: the words before the cursor (the\n"
           "# command's name left out) set _hoglake_reply to what may come next.\n"
           "_hoglake_candidates() {\n"
           "    local cur=\"$1\" cmd=\"\" verb=\"\" want=\"\" w spec\n"
           "    shift\n"
           "    _hoglake_reply=\"\"\n"
           "    for w in \"$@\"; do\n"
           "        if [ -n \"$want\" ]; then want=\"\"; continue; fi\n"
           "        case \"$w\" in\n"
           "            --*=*) ;;\n"
           "            --*)\n"
           "                spec=\" $(_hoglake_spec \"$cmd\" \"$verb\") \"\n"
           "                case \"$spec\" in *\" $w= \"*) want=\"$w\" ;; esac ;;\n"
           "            *)\n"
           "                if [ -z \"$cmd\" ]; then cmd=\"$w\"\n"
           "                elif [ -z \"$verb\" ] && [ -n \"$(_hoglake_verbs \"$cmd\")\" ]; then "
           "verb=\"$w\"\n"
           "                fi ;;\n"
           "        esac\n"
           "    done\n"
           "    if [ -n \"$want\" ]; then\n"
           "        _hoglake_reply=\"$(_hoglake_choices \"$cmd\" \"$verb\" \"$want\")\"\n"
           "    elif [ \"${cur#-}\" != \"$cur\" ]; then\n"
           "        _hoglake_reply=\"$(_hoglake_spec \"$cmd\" \"$verb\" | tr -d =)\"\n"
           "    elif [ -z \"$cmd\" ]; then\n"
           "        _hoglake_reply=\"$_hoglake_commands\"\n"
           "    elif [ -z \"$verb\" ]; then\n"
           "        _hoglake_reply=\"$(_hoglake_verbs \"$cmd\")\"\n"
           "    fi\n"
           "}\n");
}

static void print_bash(void)
{
    printf("# bash completion for hoglake: source <(hoglake completion bash), or save it\n"
           "# as /etc/bash_completion.d/hoglake. Generated by hoglake %s.\n\n",
           HOGLAKE_VERSION);
    print_core();
    printf("\n_hoglake() {\n"
           "    local cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
           "    _hoglake_candidates \"$cur\" \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"\n"
           "    COMPREPLY=($(compgen -W \"$_hoglake_reply\" -- \"$cur\"))\n"
           "}\n"
           "complete -o default -F _hoglake hoglake\n");
}

static void print_zsh(void)
{
    printf("#compdef hoglake\n"
           "# zsh completion for hoglake: source <(hoglake completion zsh) after compinit,\n"
           "# or save it as _hoglake in a directory of $fpath. Generated by hoglake %s.\n\n",
           HOGLAKE_VERSION);
    print_core();
    printf("\n_hoglake() {\n"
           "    local cur=\"${words[CURRENT]}\"\n"
           "    _hoglake_candidates \"$cur\" \"${(@)words[2,CURRENT-1]}\"\n"
           "    if [ -n \"$_hoglake_reply\" ]; then\n"
           "        compadd -- ${=_hoglake_reply}\n"
           "    else\n"
           "        _files\n"
           "    fi\n"
           "}\n"
           "if [ \"$funcstack[1]\" = _hoglake ]; then _hoglake \"$@\"; "
           "else compdef _hoglake hoglake; fi\n");
}

static int run_bash(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    (void)a;
    print_bash();
    return EXIT_OK;
}

static int run_zsh(struct cli *cli, const struct cli_args *a)
{
    (void)cli;
    (void)a;
    print_zsh();
    return EXIT_OK;
}

int cmd_completion(struct cli *cli, int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"bash", "print the bash completion script", "completion bash", NULL, 0, 0, 0, run_bash},
        {"zsh", "print the zsh completion script", "completion zsh", NULL, 0, 0, 0, run_zsh},
    };
    return cli_run_verbs(cli, "completion", verbs, sizeof verbs / sizeof verbs[0], argc, argv);
}
