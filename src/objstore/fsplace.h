/* Where a file:// object lives: its parent directory, opened, and its name
 * in it. Every file operation of the object store acts through a place, so
 * "which file is this" is decided once, here.
 *
 * Unconfined (root NULL: a client's own storage), the path is taken as
 * given and symbolic links are followed as the system does.
 *
 * Confined (root set: the server acting on a catalog's data path), the
 * path must lie beneath root, and every component from "/" down to the
 * object is resolved without following a symbolic link: openat2 with
 * RESOLVE_NO_SYMLINKS (and RESOLVE_BENEATH below the root) where the kernel
 * has it, else a walk opening one component at a time with O_NOFOLLOW.
 * Refusals are HL_ERR_FORBIDDEN with code "outside_root", "symlink" or
 * "not_regular_file". */
#ifndef HL_OBJSTORE_FSPLACE_H
#define HL_OBJSTORE_FSPLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "hoglake/error.h"

struct fs_place {
    int dirfd;        /* the parent directory, O_RDONLY; -1 when closed */
    const char *name; /* the last component, pointing into the path given */
    bool confined;
};

/* Opens the parent directory of path (absolute, canonical: no empty, "."
 * or ".." segment). With create, missing directories are made: 0755, or
 * group-writable and setgid under a setgid directory, so every member of a
 * shared warehouse's group can maintain what another wrote. 0, or -1 with
 * err (HL_ERR_NOT_FOUND when a directory is missing and not created). */
int fs_place_open(const char *root, const char *path, bool create, struct fs_place *out,
                  struct hl_error *err);
void fs_place_close(struct fs_place *p);

/* Opens the place's regular file for reading and gets its size. Anything
 * but a regular file is not found unconfined, refused confined (a link is
 * never followed there). Returns the descriptor or -1 with err. */
int fs_open_regular(const struct fs_place *p, const char *path, uint64_t *size,
                    struct hl_error *err);

/* Tests: false forces the component walk even where openat2 exists. */
void fs_place_use_openat2(bool on);

#endif
