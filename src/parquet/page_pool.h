/* A ring of page jobs (page_job.h) and the threads that run them.
 *
 * The caller fills the next free job, submits it, and later takes the
 * jobs back in submission order, each once it has run: the order of a
 * file's pages never depends on which thread finished first. At most
 * `capacity` jobs are out at a time, which bounds the memory pages in
 * flight hold. While the caller waits for the oldest job, it runs pending
 * jobs itself rather than sit idle.
 *
 * With no worker threads a job runs on the caller when it is submitted.
 *
 * One caller per pool: the functions other than the workers' own are not
 * thread-safe. */
#ifndef HL_PARQUET_PAGE_POOL_H
#define HL_PARQUET_PAGE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "parquet/page_job.h"
#include "util/error.h"

struct pq_page_pool;

/* threads workers (0: none), at most capacity (>= 1) jobs out at a time. */
int pq_page_pool_new(int threads, size_t capacity, struct pq_page_pool **out, struct error *err);
/* Stops and joins the workers (a job being run is finished, pending ones
 * are dropped) and frees every job. NULL is a no-op. */
void pq_page_pool_free(struct pq_page_pool *p);

/* The next free job to fill, or NULL when capacity jobs are out (take the
 * oldest back first). Its buffers are those it had when last taken back. */
struct pq_page_job *pq_page_pool_next(struct pq_page_pool *p);
/* Hands the job pq_page_pool_next returned to the workers. */
void pq_page_pool_submit(struct pq_page_pool *p);
/* The oldest job out once it has run, or NULL when none is out or (wait
 * false) the oldest has not run yet. */
struct pq_page_job *pq_page_pool_oldest(struct pq_page_pool *p, bool wait);
/* Frees the oldest job's slot for reuse; call after reading its output. */
void pq_page_pool_retire(struct pq_page_pool *p);

#endif
