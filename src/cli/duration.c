#include "cli/duration.h"

#include <string.h>

#include "util/strutil.h"

bool cli_parse_duration(const char *s, int64_t *seconds)
{
    size_t n = strlen(s);
    if (n == 0 || n > 20)
        return false;
    static const struct {
        char unit;
        int64_t seconds;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
    int64_t scale = 1;
    char digits[24];
    memcpy(digits, s, n + 1);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (digits[n - 1] == units[i].unit) {
            scale = units[i].seconds;
            digits[n - 1] = '\0';
            break;
        }
    }
    int64_t v;
    if (!str_parse_int64(digits, &v) || v <= 0 || v > INT64_MAX / scale)
        return false;
    *seconds = v * scale;
    return true;
}
