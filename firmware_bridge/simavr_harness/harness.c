/*
 * Runs the scoreboard firmware on a simulated ATmega328P (libsimavr) in real time and reports what
 * it drives.  UART0 is bridged to a pseudo-terminal the host opens like the real board's port.
 *
 *   scoreboard-harness FIRMWARE.elf [--link PATH] [--trace-spi] [--trace-uart]
 *
 * stdout, one line per observation (sim = simulated microseconds since reset, wall = the
 * CLOCK_MONOTONIC seconds the observation was made, comparable with Python's time.monotonic()):
 *   PTY <path>                              the board's serial port (also --link PATH, a symlink),
 *                                           20 simulated ms after power-up, once its UART listens
 *   DISPLAY <sim> <wall> <48 hex> |<24 chars>|   the 24 digits now shown (segments; characters)
 *   TONE_ON <sim> <wall>                    the buzzer pin started toggling (dated from its timer's start)
 *   TONE_OFF <sim> <wall> <start sim> <hz>  ... stopped; the tone's start, its pin's measured frequency
 *   LEDS <sim> <wall> <hex>                 PORTC bits 0..5 (green, red, seat markers 0..3)
 *   BUTTON <sim> <wall> <name> down|up      a button pin driven by a command
 *   TIME <sim> <wall>                       once per simulated second: the pace against the wall
 *   RESET <sim> <wall>                      the MCU restarted (reset command or watchdog)
 *   SPI <sim> <wall> <hex>                  every byte sent (with --trace-spi)
 *   RX / TX <sim> <wall> <hex>              every byte to / from the firmware's UART (--trace-uart)
 * stdin, one command per line:
 *   press NAME [MS]   hold a button down MS simulated milliseconds (default 100), then release
 *   down NAME / up NAME, reset (the MCU's reset pin), quit     (NAME: start, pass, continue)
 * The harness exits when stdin closes, on quit, SIGTERM or SIGINT.  This file runs the MCU, the
 * pty and the clock; observe.c decodes the display, the buzzer and the LEDs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_extint.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>
#include <simavr/sim_time.h>

#include "harness.h"

#define HOST_BUFFER 8192
#define MAX_SLEEP_NS 1000000L /* host input waits at most 1 ms (one firmware tick) */
#define BOOT_US 20000         /* the port appears 20 ms after power-up */

static const char *const button_names[] = {"start", "pass", "continue"};
#define BUTTON_COUNT 3
#define BUTTON_FIRST_PIN 2 /* PD2..PD4 */

avr_t *avr;
static volatile sig_atomic_t quit_requested;
static double wall_start;
static int pty_master = -1, pty_slave = -1;
static char link_path[512];
static char pty_name[128];
static bool announced;
static bool trace_spi, trace_uart;

/* host -> board bytes waiting for room in the simulated UART */
static uint8_t host_bytes[HOST_BUFFER];
static size_t host_head, host_tail;
static bool uart_xoff;
static avr_irq_t *uart_input_irq;

static avr_irq_t *button_irq[BUTTON_COUNT];
static bool button_down[BUTTON_COUNT];
static bool reset_requested;
static uint64_t next_time_report_us;

double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t sim_us(void) { return avr_cycles_to_usec(avr, avr->cycle); }

uint64_t cycles_to_ns(uint64_t cycles) { return cycles * 1000000000ull / avr->frequency; }

void report(const char *kind, uint64_t at_us, const char *format, ...)
{
    printf("%s %llu %.6f", kind, (unsigned long long)at_us, monotonic_now());
    if (format) {
        va_list args;
        va_start(args, format);
        putchar(' ');
        vprintf(format, args);
        va_end(args);
    }
    putchar('\n');
    fflush(stdout);
}

/* ---- buttons ---------------------------------------------------------------------------- */

/* The buttons are what holds each pin up (the pull-up) or down (a finger).  simavr re-drives every
 * input pin from PORTD on each write to port D (the buzzer's tone toggles PD6 thousands of times a
 * second), putting the pull-up back over a held button; told the pins' external level, it keeps
 * them where the buttons hold them, as the real pins are. */
static void hold_button_pins(void)
{
    avr_ioport_external_t pins = {.name = 'D', .mask = 0, .value = 0};
    for (int i = 0; i < BUTTON_COUNT; i++) {
        pins.mask |= 1u << (BUTTON_FIRST_PIN + i);
        if (!button_down[i]) {
            pins.value |= 1u << (BUTTON_FIRST_PIN + i);
        }
    }
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &pins);
}

static void drive_button(int index, bool down)
{
    button_down[index] = down;
    hold_button_pins();
    avr_raise_irq(button_irq[index], down ? 0 : 1);
    report("BUTTON", sim_us(), "%s %s", button_names[index], down ? "down" : "up");
}

static avr_cycle_count_t release_button(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a;
    (void)when;
    drive_button((int)(intptr_t)param, false);
    return 0;
}

static int button_index(const char *name)
{
    for (int i = 0; i < BUTTON_COUNT; i++) {
        if (strcmp(name, button_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

static void run_command(char *line)
{
    char verb[16] = "", name[16] = "";
    long ms = 100;
    int fields = sscanf(line, "%15s %15s %ld", verb, name, &ms);
    if (fields < 1) {
        return;
    }
    if (strcmp(verb, "quit") == 0) {
        quit_requested = 1;
        return;
    }
    if (strcmp(verb, "reset") == 0) {
        reset_requested = true; /* done between two instructions, not inside simavr's callbacks */
        return;
    }
    int index = button_index(name);
    if (index < 0 || ms <= 0) {
        fprintf(stderr, "harness: unknown command %s", line);
        return;
    }
    if (strcmp(verb, "press") == 0) {
        drive_button(index, true);
        avr_cycle_timer_register_usec(avr, (uint32_t)ms * 1000u, release_button, (void *)(intptr_t)index);
    } else if (strcmp(verb, "down") == 0) {
        drive_button(index, true);
    } else if (strcmp(verb, "up") == 0) {
        drive_button(index, false);
    } else {
        fprintf(stderr, "harness: unknown command %s", line);
    }
}

static void read_commands(void)
{
    static char line[256];
    static size_t used;
    char chunk[256];
    ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
    if (n == 0) {
        quit_requested = 1; /* our parent is gone */
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (chunk[i] == '\n' || used == sizeof line - 2) {
            line[used++] = '\n';
            line[used] = 0;
            run_command(line);
            used = 0;
        } else {
            line[used++] = chunk[i];
        }
    }
}

/* ---- the serial port -------------------------------------------------------------------- */

static void on_uart_output(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t byte = (uint8_t)value;
    if (trace_uart) {
        report("TX", sim_us(), "%02x", byte);
    }
    /* nobody reading for long: the tty queue fills and bytes are lost, as on a real unplugged cable */
    if (write(pty_master, &byte, 1) < 0 && errno != EAGAIN) {
        perror("harness: pty write");
    }
}

static void on_uart_xon(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    if (value) {
        uart_xoff = false;
    }
}

static void on_uart_xoff(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uart_xoff = value != 0;
}

static void read_host(void)
{
    if (host_head == HOST_BUFFER) {
        memmove(host_bytes, host_bytes + host_tail, host_head - host_tail);
        host_head -= host_tail;
        host_tail = 0;
    }
    ssize_t n = read(pty_master, host_bytes + host_head, HOST_BUFFER - host_head);
    if (n > 0) {
        host_head += (size_t)n;
    }
}

static void feed_uart(void)
{
    while (host_tail < host_head && !uart_xoff) {
        if (trace_uart) {
            report("RX", sim_us(), "%02x", host_bytes[host_tail]);
        }
        avr_raise_irq(uart_input_irq, host_bytes[host_tail++]);
    }
    if (host_tail == host_head) {
        host_tail = host_head = 0;
    }
}

static void open_pty(void)
{
    pty_master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (pty_master < 0 || grantpt(pty_master) < 0 || unlockpt(pty_master) < 0) {
        perror("harness: pty");
        exit(1);
    }
    const char *name = ptsname(pty_master);
    /* we hold the slave open ourselves so the port survives the host closing and reopening it */
    pty_slave = open(name, O_RDWR | O_NOCTTY);
    struct termios raw;
    if (pty_slave < 0 || tcgetattr(pty_slave, &raw) < 0) {
        perror("harness: pty slave");
        exit(1);
    }
    cfmakeraw(&raw);
    tcsetattr(pty_slave, TCSANOW, &raw);
    snprintf(pty_name, sizeof pty_name, "%s", name);
}

/* ---- keeping real time ------------------------------------------------------------------ */

/* The port appears once the board is up (as a USB board's does): bytes sent while the firmware's
 * UART is still off would be lost, on real hardware as here. */
static void announce_port(void)
{
    if (link_path[0]) {
        unlink(link_path);
        if (symlink(pty_name, link_path) < 0) {
            perror("harness: symlink");
            exit(1);
        }
    }
    printf("PTY %s\n", pty_name);
    fflush(stdout);
    announced = true;
}

static void housekeeping(void)
{
    if (!announced && sim_us() >= BOOT_US) {
        announce_port();
    }
    uint64_t now_us = sim_us();
    if (now_us >= next_time_report_us) {
        report("TIME", now_us, NULL);
        next_time_report_us += 1000000;
    }
}

static void service(int timeout_ms)
{
    struct pollfd fds[2] = {{pty_master, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    if (poll(fds, 2, timeout_ms) > 0) {
        if (fds[0].revents & POLLIN) {
            read_host();
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            read_commands();
        }
    }
    housekeeping();
}

/*
 * simavr calls this when the firmware sleeps until its next timer event.  Wait until the wall
 * clock reaches the simulated time at which that event is due (an absolute deadline, so waiting
 * never accumulates drift), serving the pty and stdin meanwhile.
 */
static void sleep_until_due(avr_t *a, avr_cycle_count_t how_long)
{
    double due = wall_start + (double)(a->cycle + how_long) / (double)a->frequency;
    for (;;) {
        double left = due - monotonic_now();
        if (left <= 0 || quit_requested) {
            break;
        }
        long ns = left * 1e9 < MAX_SLEEP_NS ? (long)(left * 1e9) : MAX_SLEEP_NS;
        struct timespec ts = {0, ns};
        struct pollfd fds[2] = {{pty_master, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        if (ppoll(fds, 2, &ts, NULL) > 0) {
            if (fds[0].revents & POLLIN) {
                read_host();
            }
            if (fds[1].revents & (POLLIN | POLLHUP)) {
                read_commands();
            }
        }
    }
    housekeeping();
}

/* A firmware that does not sleep (a hung loop, or busy-waiting) would race ahead of the wall clock,
 * and with it its watchdog and timers: hold it back too, whenever it is more than 1 ms ahead. */
static void pace_busy_cpu(void)
{
    double due = wall_start + (double)avr->cycle / (double)avr->frequency;
    if (due - monotonic_now() > 0.001) {
        struct timespec until = {(time_t)due, (long)((due - (double)(time_t)due) * 1e9)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    }
}

static void on_signal(int sig)
{
    (void)sig;
    quit_requested = 1;
}

static avr_irq_t *port_irq(char port, int pin)
{
    return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), pin);
}

int main(int argc, char **argv)
{
    const char *firmware_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) {
            snprintf(link_path, sizeof link_path, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--trace-spi") == 0) {
            trace_spi = true;
        } else if (strcmp(argv[i], "--trace-uart") == 0) {
            trace_uart = true;
        } else {
            firmware_path = argv[i];
        }
    }
    if (!firmware_path) {
        fprintf(stderr, "usage: %s FIRMWARE.elf [--link PATH] [--trace-spi] [--trace-uart]\n", argv[0]);
        return 2;
    }
    elf_firmware_t firmware;
    memset(&firmware, 0, sizeof firmware);
    if (elf_read_firmware(firmware_path, &firmware) != 0) {
        fprintf(stderr, "harness: cannot read firmware %s\n", firmware_path);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "harness: simavr does not know the atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr->frequency = 16000000;
    avr->log = LOG_ERROR;
    avr_load_firmware(avr, &firmware);
    avr->frequency = 16000000; /* the ELF may not carry the .mmcu section with the frequency */
    avr->sleep = sleep_until_due;

    uint32_t uart_flags = 0; /* no console echo of UART bytes, no polling naps */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &uart_flags);
    uart_input_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart_output,
                            NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), on_uart_xon,
                            NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), on_uart_xoff,
                            NULL);
    observe_outputs(trace_spi);
    /* Start and Pass sit on INT0/INT1, whose reset default is "low level".  simavr then re-checks a
     * held-low pin every cycle, even with the interrupt masked, so a held button would keep the
     * simulated CPU from ever sleeping (and the simulation from keeping real time).  The firmware
     * does not use these interrupts: turn that emulation off. */
    avr_extint_set_strict_lvl_trig(avr, 0, 0);
    avr_extint_set_strict_lvl_trig(avr, 1, 0);
    for (int i = 0; i < BUTTON_COUNT; i++) {
        button_irq[i] = port_irq('D', BUTTON_FIRST_PIN + i);
    }
    hold_button_pins();

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
    open_pty();

    wall_start = monotonic_now();
    int state = cpu_Running;
    uint32_t steps = 0;
    bool powered_up = false;
    while (!quit_requested && state != cpu_Done && state != cpu_Crashed) {
        if (reset_requested) {
            reset_requested = false;
            avr_reset(avr);
        }
        if (avr->pc == avr->reset_pc) {
            /* power-up, the reset command or the firmware's watchdog: a reset clears the port
             * pins, but the buttons' pull-ups (and any finger on them) are still there */
            for (int i = 0; i < BUTTON_COUNT; i++) {
                /* the reset zeroed PIND behind the pin's IRQ, which still holds the old level and
                 * would filter the same level out: pass through the other level first */
                avr_raise_irq(button_irq[i], button_down[i] ? 1 : 0);
                avr_raise_irq(button_irq[i], button_down[i] ? 0 : 1);
            }
            if (powered_up) {
                outputs_reset();
                report("RESET", sim_us(), NULL);
            }
            powered_up = true;
        }
        state = avr_run(avr);
        if (host_tail < host_head) {
            /* here, not in the sleep callback: simavr moves the clock on only after a sleep
             * returns, and the bytes must arrive at the time they came, not at the sleep's start */
            feed_uart();
        }
        if ((++steps & 0x3FF) == 0) {
            service(0); /* a busy firmware still gets its input and reports */
            pace_busy_cpu();
        }
    }
    if (state == cpu_Crashed || state == cpu_Done) {
        fprintf(stderr, "harness: the simulated CPU stopped (state %d)\n", state);
    }
    if (link_path[0]) {
        unlink(link_path);
    }
    return state == cpu_Crashed ? 1 : 0;
}
