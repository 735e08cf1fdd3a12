/* test-op-table.c — being written. */
int main (void) { return 77; }
