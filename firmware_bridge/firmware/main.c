/*
 * Scoreboard firmware for the ATmega328P (docs/serial-protocol.md).  Everything is driven by
 * interrupts: UART bytes land in a ring, a 1 kHz Timer1 tick counts the clock down, sequences the
 * buzzer and samples the buttons, SPI interrupts feed the MAX7219 chain.  Between interrupts the
 * CPU sleeps (idle mode keeps the timers, UART and SPI running).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>

#include "board.h"
#include "buttons.h"
#include "buzzer.h"
#include "max7219.h"
#include "protocol.h"
#include "tick.h"
#include "uart.h"

/* After a watchdog reset the watchdog stays on at its shortest period: stop it before main. */
void early_watchdog_off(void) __attribute__((naked, used, section(".init3")));
void early_watchdog_off(void)
{
    MCUSR = 0;
    wdt_disable();
}

int main(void)
{
    uart_init();
    tick_init();
    buzzer_init();
    buttons_init();
    max7219_init();
    protocol_init();
    set_sleep_mode(SLEEP_MODE_IDLE);
    wdt_enable(WDTO_1S);
    sei();

    for (;;) {
        wdt_reset();
        int16_t byte;
        while ((byte = uart_read()) >= 0) {
            protocol_receive((uint8_t)byte, tick_millis());
        }
        if (tick_take()) {
            protocol_service(tick_millis());
        }
        cli();
        if (!uart_rx_pending() && !tick_pending()) {
            sleep_enable();
            sei(); /* the instruction after sei runs before any interrupt: no wake-up is lost */
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
