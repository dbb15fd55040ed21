/*
 * test_preload_nocuda.c - a program that never touches CUDA. Under the
 * profiler it must behave exactly as without: same output, same status,
 * errno untouched by anything the library does at load time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    printf("errno at start=%d\n", errno);
    for (int i = 0; i < argc; i++)
        printf("arg %d: %s\n", i > 0 ? i : 0, i > 0 ? argv[i] : "(self)");
    char *p = malloc(100);
    strcpy(p, "heap works");
    puts(p);
    free(p);
    fprintf(stderr, "to stderr\n");
    return 3;
}
