/* A page's byte budget in SQL, for the store's paged statements only.
 *
 * A page is capped in entries (`limit`) and in bytes: an entry's heavy
 * columns (statistics, a message, change rows) are bounded only by the
 * commit that wrote them, so a page stops before the entry that would take
 * it past --page-bytes-max, keeping at least one (docs/limits.md). The sum
 * runs inside the statement, as a window over the page in its order, so
 * neither PostgreSQL nor hoglaked holds more than the budget and one
 * entry. */
#ifndef HL_SERVER_STORE_PAGE_BUDGET_H
#define HL_SERVER_STORE_PAGE_BUDGET_H

/* A boolean: the entries before this one in `window` (a window from the
 * page's start, ROWS UNBOUNDED PRECEDING, in page order) weigh less than
 * `budget`; `bytes` is this entry's weight. The first entry always fits.
 * All three are SQL text. */
#define STORE_PAGE_FITS(bytes, window, budget)                                                     \
    "(sum(" bytes ") OVER " window " - (" bytes ") < " budget ")"

#endif
