/* smbd entry point: replaced by the master/worker daemon in this issue. */
#include <stdio.h>
int main(void)
{
	puts("smbd-ng");
	return 0;
}
