/* cr-guard-protocol.c — the crash guard stream's reads and writes, the
 * same for the window's end (cr-guard-client.c) and the server's
 * (app/cr-guard-server.c): cr-guard-protocol.h. */
#include "cr-guard-protocol.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

gboolean
cr_guard_send_all (int           fd,
                   gconstpointer data,
                   gsize         length)
{
  const guint8 *bytes = data;
  for (gsize done = 0; done < length;)
    {
      ssize_t n = send (fd, bytes + done, length - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += (gsize) n;
    }
  return TRUE;
}

gboolean
cr_guard_send_request (int                   fd,
                       const CrGuardRequest *request,
                       const int             fds[2])
{
  union {
    char           buffer[CMSG_SPACE (2 * sizeof (int))];
    struct cmsghdr align;
  } control;
  memset (&control, 0, sizeof control);
  struct iovec iov = { (void *) request, sizeof *request };
  struct msghdr message = {
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buffer,
    .msg_controllen = sizeof control.buffer,
  };
  struct cmsghdr *c = CMSG_FIRSTHDR (&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (2 * sizeof (int));
  memcpy (CMSG_DATA (c), fds, 2 * sizeof (int));
  ssize_t n;
  do
    n = sendmsg (fd, &message, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  /* The descriptors went with the first byte; the rest of the header may
   * follow on its own. */
  return n >= 0 && cr_guard_send_all (fd, (const guint8 *) request + n, sizeof *request - (gsize) n);
}

int
cr_guard_read_exact (int      fd,
                     gpointer buffer,
                     gsize    length,
                     int      first_wait_ms,
                     int      rest_wait_ms)
{
  guint8 *bytes = buffer;
  gsize got = 0;
  while (got < length)
    {
      int wait_ms = got == 0 ? first_wait_ms : rest_wait_ms;
      if (wait_ms >= 0)
        {
          struct pollfd ready_fd = { .fd = fd, .events = POLLIN };
          int ready = poll (&ready_fd, 1, wait_ms);
          if (ready < 0 && errno == EINTR)
            continue;
          if (ready < 0)
            return -1;
          if (ready == 0)
            return got == 0 ? 0 : -1;
        }
      ssize_t n = read (fd, bytes + got, length - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      got += (gsize) n;
    }
  return 1;
}
