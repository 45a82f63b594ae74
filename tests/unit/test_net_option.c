/*
 * Unit tests of --net's parser (launcher/net/net_option.c): QEMU's spellings
 * that perch takes, and for every other string one message that names
 * what is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "../../launcher/net/net_option.h"

static void user_alone(void)
{
    struct net_option o;
    struct error e;

    CHECK(net_option_parse("user", &o, &e) == 0);
    CHECK(o.kind == NET_USER && o.nr_fwd == 0);
}

static void forwards_in_qemus_spellings(void)
{
    struct net_option o;
    struct error e;

    CHECK(net_option_parse("user,hostfwd=tcp::8080-:80", &o, &e) == 0);
    CHECK(o.kind == NET_USER && o.nr_fwd == 1);
    CHECK(o.fwd[0].host_port == 8080 && o.fwd[0].guest_port == 80 && !o.fwd[0].udp);
    CHECK(net_option_parse("user,hostfwd=tcp:127.0.0.1:2222-:22,hostfwd=udp::5353-:53,"
                           "hostfwd=::65535-10.0.2.15:1", &o, &e) == 0);
    CHECK(o.nr_fwd == 3);
    CHECK(o.fwd[0].host_port == 2222 && o.fwd[0].guest_port == 22 && !o.fwd[0].udp);
    CHECK(o.fwd[1].host_port == 5353 && o.fwd[1].guest_port == 53 && o.fwd[1].udp);
    CHECK(o.fwd[2].host_port == 65535 && o.fwd[2].guest_port == 1 && !o.fwd[2].udp);
    /* The same port once for TCP and once for UDP: two sockets. */
    CHECK(net_option_parse("user,hostfwd=tcp::53-:53,hostfwd=udp::53-:53", &o, &e) == 0);
}

static void at_most_sixteen_forwards(void)
{
    char value[1024] = "user";
    struct net_option o;
    struct error e;

    for (int i = 0; i < NET_MAX_HOSTFWD; i++)
        snprintf(value + strlen(value), sizeof(value) - strlen(value),
                 ",hostfwd=tcp::%d-:80", 10000 + i);
    CHECK(net_option_parse(value, &o, &e) == 0 && o.nr_fwd == NET_MAX_HOSTFWD);
    strcat(value, ",hostfwd=tcp::9999-:80");
    CHECK(net_option_parse(value, &o, &e) == -1);
    CHECK_CONTAINS(e.msg, "at most 16 hostfwd");
}

static void a_tap(void)
{
    struct net_option o;
    struct error e;

    CHECK(net_option_parse("tap=tap0", &o, &e) == 0);
    CHECK(o.kind == NET_TAP && !strcmp(o.tap, "tap0"));
    CHECK(net_option_parse("tap=abcdefghijklmno", &o, &e) == 0);   /* 15 bytes */
    CHECK(!strcmp(o.tap, "abcdefghijklmno"));
}

/* Each bad value, and a piece of the one line it gets. */
static const char *const bad[][2] = {
    { "", "--net needs a value: user[,hostfwd=" },
    { "usr", "--net 'usr': unknown network 'usr' (user" },
    { "user=1", "unknown network 'user'" },
    { "socket,listen=:1234", "unknown network 'socket'" },
    { "tap", "--net 'tap' needs a name: tap=NAME" },
    { "user,", "unknown user option '' (only hostfwd=" },
    { "user,,hostfwd=tcp::1-:2", "unknown user option ''" },
    { "user,hostfwd=tcp::1-:2,", "unknown user option ''" },
    { "user,restrict=on", "unknown user option 'restrict=on'" },
    { "user,hostfwd", "unknown user option 'hostfwd'" },
    { "user,hostfwd=", "hostfwd '' is not [tcp|udp]:[127.0.0.1]:HOSTPORT-[10.0.2.15]:GUESTPORT" },
    { "user,hostfwd=tcp:8080-:80", "hostfwd 'tcp:8080-:80' is not" },
    { "user,hostfwd=tcp::8080:80", "hostfwd 'tcp::8080:80' is not" },
    { "user,hostfwd=tcp::8080-80", "hostfwd 'tcp::8080-80' is not" },
    { "user,hostfwd=sctp::1-:2", "hostfwd protocol 'sctp' is neither tcp nor udp" },
    { "user,hostfwd=tcp:0.0.0.0:8080-:80",
      "host address '0.0.0.0' refused: forwarded ports listen on 127.0.0.1 only" },
    { "user,hostfwd=tcp:192.168.1.5:8080-:80", "host address '192.168.1.5' refused" },
    { "user,hostfwd=tcp:localhost:8080-:80", "host address 'localhost' refused" },
    { "user,hostfwd=tcp::8080-10.0.2.16:80",
      "guest address '10.0.2.16' refused: the guest is 10.0.2.15" },
    { "user,hostfwd=tcp::-:80", "host port '' is not a number from 1 to 65535" },
    { "user,hostfwd=tcp::0-:80", "host port '0' is not a number" },
    { "user,hostfwd=tcp::65536-:80", "host port '65536' is not a number" },
    { "user,hostfwd=tcp::080x-:80", "host port '080x' is not a number" },
    { "user,hostfwd=tcp::+80-:80", "host port '+80' is not a number" },
    { "user,hostfwd=tcp::999999999999-:80", "host port '999999999999' is not" },
    { "user,hostfwd=tcp::80-:", "guest port '' is not a number from 1 to 65535" },
    { "user,hostfwd=tcp::80-:0", "guest port '0' is not a number" },
    { "user,hostfwd=tcp::80-:80:1", "guest port '80:1' is not a number" },
    { "user,hostfwd=tcp::80-:80,hostfwd=tcp:127.0.0.1:80-:81",
      "host port 80 is forwarded twice" },
    { "tap=", "tap= needs an interface name" },
    { "tap=abcdefghijklmnop", "interface name is longer than 15 bytes" },
    { "tap=a/b", "'a/b' cannot be an interface name" },
    { "tap=a:b", "'a:b' cannot be an interface name" },
    { "tap=a b", "'a b' cannot be an interface name" },
    { "tap=tap0,vhost=on", "'tap0,vhost=on' cannot be an interface name" },
    { "tap=..", "'..' cannot be an interface name" },
    { "tap=\x1b[2J", "'\\x1b[2J' cannot be an interface name" },
};

static void every_mistake_is_named(void)
{
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct net_option o;
        struct error e = { "" };

        if (net_option_parse(bad[i][0], &o, &e) != -1) {
            printf("FAIL %s: '%s' was taken\n", check_case_name, bad[i][0]);
            check_case_failed = 1;
            return;
        }
        CHECK_CONTAINS(e.msg, bad[i][1]);
        CHECK(!strchr(e.msg, '\n'));
    }
}

/* The message quotes the value as given: the user sees which --net. */
static void messages_quote_the_value(void)
{
    struct net_option o;
    struct error e;

    CHECK(net_option_parse("user,hostfwd=tcp::1-:2,hostfwd=tcp::x-:3", &o, &e) == -1);
    CHECK(!strcmp(e.msg, "--net 'user,hostfwd=tcp::1-:2,hostfwd=tcp::x-:3': host port "
                         "'x' is not a number from 1 to 65535"));
}

int main(void)
{
    RUN(user_alone);
    RUN(forwards_in_qemus_spellings);
    RUN(at_most_sixteen_forwards);
    RUN(a_tap);
    RUN(every_mistake_is_named);
    RUN(messages_quote_the_value);
    return check_exit_status();
}
