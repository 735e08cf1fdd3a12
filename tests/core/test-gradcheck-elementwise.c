/* test-gradcheck-elementwise.c — being written. */
int main (void) { return 77; }
