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
 *   TONE_ON <sim> <wall>                    the buzzer pin started toggling
 *   TONE_OFF <sim> <wall> <start sim> <hz>  ... stopped; the tone's start and measured frequency
 *   LEDS <sim> <wall> <hex>                 PORTC bits 0..5 (green, red, seat markers 0..3)
 *   BUTTON <sim> <wall> <name> down|up      a button pin driven by a command
 *   TIME <sim> <wall>                       once per simulated second: the pace against the wall
 *   RESET <sim> <wall>                      the MCU restarted (reset command or watchdog)
 *   SPI <sim> <wall> <hex>                  every byte sent (with --trace-spi)
 *   RX / TX <sim> <wall> <hex>              every byte to / from the firmware's UART (--trace-uart)
 * stdin, one command per line:
 *   press NAME [MS]   hold a button down MS simulated milliseconds (default 100), then release
 *   down NAME / up NAME, reset (the MCU's reset pin), quit     (NAME: start, pass, continue)
 * The harness exits when stdin closes, on quit, SIGTERM or SIGINT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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
#include <simavr/avr_spi.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_irq.h>
#include <simavr/sim_time.h>

#include "font7seg.h"

#define CHIPS 3
#define DIGITS 24
#define HOST_BUFFER 8192
#define MAX_SLEEP_NS 1000000L
#define BOOT_US 20000 /* the port appears 20 ms after power-up */ /* host input waits at most 1 ms (one firmware tick) */

static const char *const button_names[] = {"start", "pass", "continue"};
#define BUTTON_COUNT 3
#define BUTTON_FIRST_PIN 2 /* PD2..PD4 */
#define BUZZER_PIN 6       /* PD6 */
#define LOAD_PIN 2         /* PB2 */

static avr_t *avr;
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

/* the MAX7219 chain: a 48-bit shift register and each chip's latched registers */
static uint8_t chain[2 * CHIPS];
static uint8_t chip_digit[CHIPS][8];
static uint8_t chip_decode[CHIPS], chip_scan_limit[CHIPS], chip_on[CHIPS], chip_test[CHIPS];
static uint8_t reported[DIGITS];
static bool reported_once;

/* the buzzer pin */
static bool tone_sounding;
static uint64_t tone_start;        /* ns: when the current tone began (its first edge less a half period) */
static uint64_t tone_first_edge, tone_last_edge, tone_last_regular, tone_suspect_edge;
static uint64_t tone_half;         /* ns between edges of the current tone; 0 until its second edge */
static uint32_t tone_regular_edges;
static bool tone_suspect;          /* the last edge broke the rhythm: the tone stopped or changed */

static uint8_t leds_reported = 0xFF;
static avr_irq_t *button_irq[BUTTON_COUNT];
static bool button_down[BUTTON_COUNT];
static bool reset_requested;
static uint64_t next_time_report_us;

static double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t sim_us(void) { return avr_cycles_to_usec(avr, avr->cycle); }

static void report(const char *kind, uint64_t at_us, const char *format, ...)
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

/* ---- display ---------------------------------------------------------------------------- */

static uint8_t code_b(uint8_t value)
{
    static const uint8_t forms[16] = {0x7E, 0x30, 0x6D, 0x79, 0x33, 0x5B, 0x5F, 0x70,
                                      0x7F, 0x7B, 0x01, 0x4F, 0x37, 0x0E, 0x67, 0x00};
    return (uint8_t)(forms[value & 0x0F] | (value & 0x80));
}

static char character_of(uint8_t segments)
{
    /* the first character of this order that the font draws this way: digits before letters,
     * then each letter in the form the font gives it (b not B, n not N, t not T, ...) */
    static const char order[] =
        " 0123456789-AbCcdEFGHhIiJLnoPqrtUuy_=?()[]'\"^~`/\\|!$,BDKMNOQRSTVWXYZaefgjklmpsvwxz";
    uint8_t wanted = (uint8_t)(segments & 0x7F);
    for (const char *c = order; *c; c++) {
        if ((font7seg[*c - FONT7SEG_FIRST] & 0x7F) == wanted) {
            return *c;
        }
    }
    return '#';
}

static void visible_digits(uint8_t out[DIGITS])
{
    for (int chip = 0; chip < CHIPS; chip++) {
        for (int d = 0; d < 8; d++) {
            uint8_t value = chip_digit[chip][d];
            if (chip_test[chip]) {
                value = 0xFF;
            } else if (!chip_on[chip] || d > chip_scan_limit[chip]) {
                value = 0;
            } else if (chip_decode[chip] & (1u << d)) {
                value = code_b(value);
            }
            out[chip * 8 + d] = value;
        }
    }
}

static void report_display_if_changed(void)
{
    uint8_t now[DIGITS];
    visible_digits(now);
    if (reported_once && memcmp(now, reported, DIGITS) == 0) {
        return;
    }
    memcpy(reported, now, DIGITS);
    reported_once = true;
    char hex[2 * DIGITS + 1], text[DIGITS + 1];
    for (int i = 0; i < DIGITS; i++) {
        snprintf(hex + 2 * i, 3, "%02x", now[i]);
        text[i] = character_of(now[i]);
    }
    text[DIGITS] = 0;
    report("DISPLAY", sim_us(), "%s |%s|", hex, text);
}

static void latch_chain(void)
{
    for (int chip = 0; chip < CHIPS; chip++) {
        /* the last two bytes shifted in sit in chip 0, the two before in chip 1, ... */
        uint8_t reg = (uint8_t)(chain[2 * (CHIPS - 1 - chip)] & 0x0F);
        uint8_t value = chain[2 * (CHIPS - 1 - chip) + 1];
        switch (reg) {
        case 0x00: break; /* no-op */
        case 0x09: chip_decode[chip] = value; break;
        case 0x0A: break; /* intensity */
        case 0x0B: chip_scan_limit[chip] = value & 0x07; break;
        case 0x0C: chip_on[chip] = value & 0x01; break;
        case 0x0F: chip_test[chip] = value & 0x01; break;
        default:
            if (reg >= 0x01 && reg <= 0x08) {
                chip_digit[chip][reg - 1] = value;
            }
        }
    }
    report_display_if_changed();
}

static void on_spi_byte(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    memmove(chain, chain + 1, sizeof chain - 1);
    chain[sizeof chain - 1] = (uint8_t)value;
    if (trace_spi) {
        report("SPI", sim_us(), "%02x", value & 0xFF);
    }
}

static void on_load_pin(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)param;
    if (value && !irq->value) {
        latch_chain(); /* LOAD's rising edge */
    }
}

/* ---- buzzer and LEDs -------------------------------------------------------------------- */

static uint64_t cycles_to_ns(uint64_t cycles) { return cycles * 1000000000ull / avr->frequency; }

static double tone_hz(void)
{
    if (tone_regular_edges < 2 || tone_last_regular <= tone_first_edge) {
        return 0.0;
    }
    double seconds = (double)(tone_last_regular - tone_first_edge) / 1e9;
    return (tone_regular_edges - 1) / (2.0 * seconds);
}

static void tone_begins(uint64_t first_edge, uint64_t half)
{
    tone_sounding = true;
    tone_first_edge = tone_last_edge = tone_last_regular = first_edge;
    tone_half = half;
    tone_start = first_edge - half;
    tone_regular_edges = 1;
    tone_suspect = false;
    report("TONE_ON", tone_start / 1000, NULL);
}

static void tone_ends(uint64_t end)
{
    report("TONE_OFF", end / 1000, "%llu %.1f", (unsigned long long)(tone_start / 1000), tone_hz());
    tone_sounding = false;
}

static bool on_rhythm(uint64_t interval)
{
    uint64_t slack = tone_half / 20 + 1000; /* 5 %: Timer0's edges are exact */
    return interval + slack >= tone_half && interval <= tone_half + slack;
}

/*
 * Timer0 toggles the pin every half period.  A tone ends when the edges stop (the firmware's
 * stop forces the pin low: that edge is the end); a new tone that follows without a pause shows
 * as two intervals in a row off the old rhythm, the second one the new half period.
 */
static void on_buzzer_pin(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    /* a timer-driven edge arrives twice (from the timer, then from the port): keep our own level */
    static uint32_t level;
    if ((value & 1) == level) {
        return;
    }
    level = value & 1;
    uint64_t now = cycles_to_ns(avr->cycle);
    if (!tone_sounding) {
        tone_begins(now, 0);
        return;
    }
    uint64_t interval = now - tone_last_edge;
    if (tone_half == 0) {
        tone_half = interval;
        tone_start = tone_first_edge - interval;
        tone_regular_edges = 2;
        tone_last_regular = now;
    } else if (on_rhythm(interval)) {
        tone_suspect = false;
        tone_regular_edges++;
        tone_last_regular = now;
    } else if (!tone_suspect) {
        tone_suspect = true;
        tone_suspect_edge = now;
    } else {
        uint64_t changed_at = tone_suspect_edge - interval; /* the new tone's start */
        tone_ends(changed_at > tone_last_regular ? changed_at : tone_last_regular);
        tone_begins(tone_suspect_edge, interval);
        tone_regular_edges = 2;
        tone_last_regular = now;
    }
    tone_last_edge = now;
}

static void check_tone_stopped(void)
{
    if (!tone_sounding) {
        return;
    }
    uint64_t now = cycles_to_ns(avr->cycle);
    uint64_t quiet = 3 * tone_half > 2000000 ? 3 * tone_half : 2000000;
    if (now - tone_last_edge > quiet) {
        tone_ends(tone_last_edge);
    }
}

static void on_port_c(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t leds = (uint8_t)(value & 0x3F);
    if (leds != leds_reported) {
        leds_reported = leds;
        report("LEDS", sim_us(), "%02x", leds);
    }
}

/* ---- buttons ---------------------------------------------------------------------------- */

static void drive_button(int index, bool down)
{
    button_down[index] = down;
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
    check_tone_stopped();
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
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT), on_spi_byte, NULL);
    avr_irq_register_notify(port_irq('B', LOAD_PIN), on_load_pin, NULL);
    avr_irq_register_notify(port_irq('D', BUZZER_PIN), on_buzzer_pin, NULL);
    avr_irq_register_notify(port_irq('C', IOPORT_IRQ_PIN_ALL), on_port_c, NULL);
    /* Start and Pass sit on INT0/INT1, whose reset default is "low level".  simavr then re-checks a
     * held-low pin every cycle, even with the interrupt masked, so a held button would keep the
     * simulated CPU from ever sleeping (and the simulation from keeping real time).  The firmware
     * does not use these interrupts: turn that emulation off. */
    avr_extint_set_strict_lvl_trig(avr, 0, 0);
    avr_extint_set_strict_lvl_trig(avr, 1, 0);
    for (int i = 0; i < BUTTON_COUNT; i++) {
        button_irq[i] = port_irq('D', BUTTON_FIRST_PIN + i);
    }

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
