/* Least privilege: hoglaked started as root becomes an unprivileged user
 * (--user, default hoglake, created when missing) before it touches a
 * database, a socket or a client's bytes, and refuses to go on as root
 * unless --allow-root says so.
 *
 * While still root it hands the server's own state to that user: the data
 * directory (the embedded PostgreSQL cluster, which from then on runs as
 * the same user, the admin token) and a warehouse directory it made. The
 * warehouse is group-owned by the user's group and setgid, and libhoglake
 * makes the directories it creates there group-writable (fsplace.h), so a
 * client writing as root (the CLI of the quickstart) leaves files the
 * server can read, compact and delete.
 *
 * Call these from main before any other thread exists: setuid applies to
 * the calling thread's process as a whole only then. */
#ifndef HL_SERVER_PRIVILEGES_H
#define HL_SERVER_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "util/error.h"

struct config;

struct run_as {
    bool drop; /* false: keep the current identity (not root, or --allow-root) */
    uid_t uid;
    gid_t gid;
    char name[64];
};

/* Decides who the server runs as, creating the user when it must (with
 * useradd, as a system user with its own group and no login). 0, or -1
 * with a message. */
int privileges_resolve(const struct config *cfg, struct run_as *out, struct error *err);

/* As root, before the drop: the data directory (made when missing) and
 * everything in it go to the user; so does the warehouse directory when
 * the server makes it, group-writable and setgid. No-op unless as->drop.
 * 0, or -1 with a message. */
int privileges_prepare(const struct config *cfg, const struct run_as *as, struct error *err);

/* Becomes the user for good (groups, gid, uid; no new privileges after),
 * checks that root cannot be regained and that the user can reach
 * data_dir. No-op unless as->drop. 0, or -1 with a message: the server
 * must not go on. */
int privileges_drop(const struct run_as *as, const char *data_dir, struct error *err);

#endif
