/* launch_blob.c - agent-launch's bytes as launch_blob[] (launch_blob.h):
 * the assembler's .incbin reads the static executable the build just
 * linked (LAUNCH_BLOB_PATH, set by images/CMakeLists.txt), so no
 * generated source and no hex dump of 0.8 MiB. */
#include "launch_blob.h"

#define LAUNCH_STR2(x) #x
#define LAUNCH_STR(x)  LAUNCH_STR2(x)

__asm__(".section .rodata\n"
        ".global launch_blob\n"
        ".type launch_blob, @object\n"
        ".balign 16\n"
        "launch_blob:\n"
        ".incbin \"" LAUNCH_STR(LAUNCH_BLOB_PATH) "\"\n"
        ".global launch_blob_end\n"
        ".type launch_blob_end, @object\n"
        "launch_blob_end:\n"
        ".previous\n");
