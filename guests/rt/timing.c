#include "timing.h"

#include "lib.h"
#include "test.h"

uint64_t rt_rdtsc(void)
{
    uint32_t lo, hi;

    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((uint64_t)hi << 32) | lo;
}

static long op_empty(void)
{
    __asm__ volatile("" ::: "memory");
    return 0;
}

/* Cycles per op of one batch; -1 if an op failed. */
static int64_t time_batch(long (*op)(void), unsigned batch)
{
    uint64_t start = rt_rdtsc();

    for (unsigned i = 0; i < batch; i++)
        if (op())
            return -1;
    return (int64_t)(rt_rdtsc() - start) / batch;
}

static void sort(int64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];

            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

int rt_time(const char *name, long (*op)(void), unsigned batch)
{
    int64_t s[RT_SAMPLES], empty = time_batch(op_empty, batch);

    for (int i = 0; i < RT_SAMPLES; i++) {
        s[i] = time_batch(op, batch);
        if (s[i] < 0)
            return -1;
        s[i] -= empty;
    }
    sort(s, RT_SAMPLES);
    printk("%s: %s cycles %ld (%ld - %ld) per op, %u ops\n", guest_name, name,
           (long)s[RT_SAMPLES / 2], (long)s[0], (long)s[RT_SAMPLES - 1],
           RT_SAMPLES * batch);
    return 0;
}
