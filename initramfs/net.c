/*
 * --net in perch's initramfs: /init brings eth0 up by DHCP before the
 * command or the shell runs. xen-netfront (loaded with the other modules)
 * finds its card over xenbus a moment later; busybox's udhcpc then asks
 * for a lease and runs its script on each event, and that script is /init
 * itself under another name (/perch/dhcp-event), which applies the lease
 * with the classic ioctls and writes /etc/resolv.conf.
 *
 * Nothing is said when it works, so `-- CMD`'s output stays CMD's. A card
 * that never appears, or no answer in DHCP_WAIT_MS, is one line on the
 * console, and the guest runs on without a network.
 */
#include "net.h"
#include "paths.h"
#include "say.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IFACE "eth0"
#define UDHCPC "/bin/udhcpc"
/* netfront's probe takes well under a second. */
#define CARD_WAIT_MS 5000
/* udhcpc sends DISCOVER_TRIES discovers a second apart, then gives up;
 * this is the guard should it hang. */
#define DISCOVER_TRIES "4"
#define DHCP_WAIT_MS 8000
#define POLL_MS 50

static void sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static bool wait_for_card(void)
{
    struct stat st;

    for (int ms = 0; ms < CARD_WAIT_MS; ms += POLL_MS) {
        if (stat("/sys/class/net/" IFACE, &st) == 0)
            return true;
        sleep_ms(POLL_MS);
    }
    return false;
}

/* --- the lease, applied (udhcpc's script) ------------------------------ */

static bool set_addr(int s, const char *ifname, unsigned long request, const char *text)
{
    struct ifreq ifr = { 0 };
    struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    sin->sin_family = AF_INET;
    if (inet_pton(AF_INET, text, &sin->sin_addr) != 1)
        return false;
    return ioctl(s, request, &ifr) == 0;
}

static bool set_up(int s, const char *ifname)
{
    struct ifreq ifr = { 0 };

    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
        return false;
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    return ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
}

/* The default route through the first router the lease names. */
static bool add_default_route(int s, const char *ifname, const char *routers)
{
    char first[16];
    struct rtentry rt = { .rt_flags = RTF_UP | RTF_GATEWAY, .rt_dev = (char *)ifname };
    struct sockaddr_in *gw = (struct sockaddr_in *)&rt.rt_gateway;

    if (sscanf(routers, "%15s", first) != 1)
        return true;   /* none offered */
    ((struct sockaddr_in *)&rt.rt_dst)->sin_family = AF_INET;
    ((struct sockaddr_in *)&rt.rt_genmask)->sin_family = AF_INET;
    gw->sin_family = AF_INET;
    if (inet_pton(AF_INET, first, &gw->sin_addr) != 1)
        return false;
    return ioctl(s, SIOCADDRT, &rt) == 0 || errno == EEXIST;
}

static bool write_resolv_conf(const char *servers)
{
    FILE *f = fopen("/etc/resolv.conf", "we");
    char one[64];
    int used;

    if (!f)
        return false;
    for (; sscanf(servers, "%63s%n", one, &used) == 1; servers += used)
        fprintf(f, "nameserver %s\n", one);
    return fclose(f) == 0;
}

static const char *env(const char *name, const char *otherwise)
{
    const char *v = getenv(name);

    return v ? v : otherwise;
}

/* bound (and renew, the same lease again): address, mask, up, route,
 * resolver. deconfig: up with no address, as udhcpc wants to start. */
int dhcp_event(const char *event)
{
    const char *ifname = env("interface", IFACE);
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    bool ok = s >= 0;

    if (ok && !strcmp(event, "deconfig"))
        ok = set_addr(s, ifname, SIOCSIFADDR, "0.0.0.0") && set_up(s, ifname);
    else if (ok && (!strcmp(event, "bound") || !strcmp(event, "renew")))
        ok = set_addr(s, ifname, SIOCSIFADDR, env("ip", "")) &&
             set_addr(s, ifname, SIOCSIFNETMASK, env("subnet", "255.255.255.0")) &&
             set_up(s, ifname) && add_default_route(s, ifname, env("router", "")) &&
             write_resolv_conf(env("dns", ""));
    if (!ok)
        say("cannot apply the DHCP %s to %s: %s", event, ifname, strerror(errno));
    if (s >= 0)
        close(s);
    return ok ? 0 : 1;
}

/* --- /init's part ------------------------------------------------------ */

static pid_t start_udhcpc(void)
{
    pid_t pid = fork();
    int null;

    if (pid != 0)
        return pid;
    /* Its chatter would land in -- CMD's output: /init speaks for it. */
    null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    execl(UDHCPC, "udhcpc", "-i", IFACE, "-f", "-q", "-n", "-t", DISCOVER_TRIES,
          "-T", "1", "-s", DHCP_EVENT, (char *)NULL);
    _exit(127);
}

/* udhcpc's status, or -1 if it had to be stopped. */
static int wait_udhcpc(pid_t pid)
{
    int status;

    for (int ms = 0; ms < DHCP_WAIT_MS; ms += POLL_MS) {
        pid_t got = waitpid(pid, &status, WNOHANG);

        if (got == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (got < 0 && errno != EINTR)
            return -1;
        sleep_ms(POLL_MS);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

void bring_up_network(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    pid_t pid;

    /* lo first: a guest's own services answer on 127.0.0.1. */
    if (s >= 0) {
        set_up(s, "lo");
        close(s);
    }
    if (access(UDHCPC, X_OK) < 0) {
        say("no %s (perch had no busybox): %s stays down", UDHCPC, IFACE);
        return;
    }
    if (!wait_for_card()) {
        say("no %s after %d s (no network card from xen-netfront): running "
            "without a network", IFACE, CARD_WAIT_MS / 1000);
        return;
    }
    pid = start_udhcpc();
    if (pid < 0) {
        say("cannot fork for udhcpc: %s", strerror(errno));
        return;
    }
    switch (wait_udhcpc(pid)) {
    case 0:
        return;
    case -1:
        say("udhcpc did not finish in %d s: running without a network",
            DHCP_WAIT_MS / 1000);
        return;
    default:
        say("no DHCP answer on %s after %s tries: running without a network",
            IFACE, DISCOVER_TRIES);
    }
}
