#include "kgen.h"

int main(int argc, char **argv)
{
    return kgen_main(argc, argv);
}
