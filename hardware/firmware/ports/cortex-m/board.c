/*
 * STM32F103 board port (Blue Pill class: 8 MHz crystal, 72 MHz core).
 *
 *   USART1  PA9/PA10, 115200 8N1; RX interrupt into a ring with each byte's arrival time.
 *   I2C1    PB6/PB7 at 400 kHz, polled with timeouts, to the DRV2605L.
 *   SysTick 1 kHz interrupt; the µs clock is milliseconds * 1000 plus the SysTick count.
 *   PA8     DRV2605L EN (push-pull), high at start-up, low from the fault handler.
 *           (Every pin: pins.h, which the wiring diagram is drawn from.)
 *   IWDG    250 ms independent watchdog, kicked from the main loop only while the core is healthy.
 *   Faults  HardFault/MemManage/BusFault/UsageFault: EN low, I2C1 reset, system reset.
 *   Flash   the last 34 KB of the internal flash hold the preset library (stm32f103.ld): page
 *           erase and half-word programming behind the core's storage HAL.
 */
#include "pins.h"
#include "stm32f103.h"
#include "thrum_board_defaults.h"
#include "thrum_fw.h"

#define HSE_STARTUP_LOOPS 100000u
#define CORE_HZ_PLL 72000000u
#define CORE_HZ_HSI 8000000u
#define BAUD 115200u
#define I2C_HZ 400000u
#define I2C_TIMEOUT_LOOPS 20000u /* ~1 ms at 72 MHz: a stuck bus must not hang the loop */
#define ERR_IO 5
#define ERR_TIMEDOUT 110
#define ERR_INVAL 22


/* The serial rings and the main loop every port shares (ports/generic/thrum_port.h). */
/* 512: a page erase (up to 40 ms) keeps the main loop away that long, and at 115 200 baud 461
 * bytes arrive meanwhile (flash_run puts them in the ring); the host keeps up to 16 frames in
 * flight while it flashes a library. */
#define THRUM_PORT_RX_RING 512u
#define THRUM_PORT_TX_RING 256u
#define THRUM_PORT_INDEX_T uint16_t
#define THRUM_PORT_IRQ_STATE_T uint32_t
#define THRUM_PORT_IRQ_SAVE() irq_save()
#define THRUM_PORT_IRQ_RESTORE(s) irq_restore(s)

static uint32_t irq_save(void);
static void irq_restore(uint32_t primask);

#include "thrum_port.h"

static uint32_t core_hz = CORE_HZ_HSI;
static uint32_t core_mhz = CORE_HZ_HSI / 1000000u;
static volatile uint32_t systick_ms;

static thrum_port_rx_t rx;
static thrum_port_tx_t tx;

static thrum_fw_t fw;

void SysTick_Handler(void);
void USART1_IRQHandler(void);
int main(void);
void board_fault(void);

void SysTick_Handler(void)
{
    systick_ms++;
}

static uint32_t irq_save(void)
{
    uint32_t primask;

    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    return primask;
}

static void irq_restore(uint32_t primask)
{
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

static uint32_t hal_clock_us(void *ctx)
{
    uint32_t primask = irq_save();
    uint32_t ms = systick_ms;
    uint32_t count = SYST_CVR;
    uint32_t reload = SYST_RVR;

    (void)ctx;
    if ((SCB_ICSR & SCB_ICSR_PENDSTSET) != 0u) {
        /* SysTick wrapped but its interrupt has not run: count the millisecond here */
        count = SYST_CVR;
        ms++;
    }
    irq_restore(primask);
    /* ms * 1000 wraps mod 2^32 exactly as the µs count must */
    return ms * 1000u + (reload - count) / core_mhz;
}

void USART1_IRQHandler(void)
{
    uint32_t sr = USART1_SR;

    if ((sr & (USART_SR_RXNE | USART_SR_ORE)) != 0u) {
        uint8_t byte = (uint8_t)USART1_DR; /* reading DR also clears an overrun */
        thrum_port_rx_push(&rx, byte, hal_clock_us(NULL));
    }
    if ((USART1_CR1 & USART_CR1_TXEIE) != 0u && (sr & USART_SR_TXE) != 0u) {
        uint8_t byte;
        if (thrum_port_tx_pop(&tx, &byte)) {
            USART1_DR = byte;
        } else {
            USART1_CR1 &= ~USART_CR1_TXEIE;
        }
    }
}

static void hal_serial_write(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    thrum_port_tx_put(&tx, data, len); /* never blocks: the core asked hal_serial_room */
    USART1_CR1 |= USART_CR1_TXEIE;
}

/* Free bytes in the transmit ring: the core writes only frames that fit. */
static uint16_t hal_serial_room(void *ctx)
{
    (void)ctx;
    return thrum_port_tx_room(&tx);
}

static void hal_delay_us(void *ctx, uint32_t us)
{
    uint32_t start = hal_clock_us(ctx);

    while (hal_clock_us(ctx) - start < us) {
    }
}

/* ---- I2C1 master (polled) -------------------------------------------------------------------- */

static int i2c_wait_sr1(uint32_t flag)
{
    uint32_t guard = I2C_TIMEOUT_LOOPS;

    for (;;) {
        uint32_t sr1 = I2C1_SR1;
        if ((sr1 & I2C_SR1_ERRORS) != 0u) {
            I2C1_SR1 = ~I2C_SR1_ERRORS; /* flags clear by writing 0 */
            return -ERR_IO;
        }
        if ((sr1 & flag) != 0u) {
            return 0;
        }
        if (--guard == 0u) {
            return -ERR_TIMEDOUT;
        }
    }
}

static int i2c_start(uint8_t addr_byte)
{
    int err;

    I2C1_CR1 |= I2C_CR1_START;
    if ((err = i2c_wait_sr1(I2C_SR1_SB)) != 0) {
        return err;
    }
    I2C1_DR = addr_byte;
    return i2c_wait_sr1(I2C_SR1_ADDR);
}

static int i2c_finish(int err)
{
    I2C1_CR1 |= I2C_CR1_STOP;
    return err;
}

static int hal_i2c_write(void *ctx, uint8_t addr, const uint8_t *data, uint8_t len)
{
    uint8_t i;
    int err;

    (void)ctx;
    if ((err = i2c_start((uint8_t)(addr << 1))) != 0) {
        return i2c_finish(err);
    }
    (void)I2C1_SR2; /* reading SR1 then SR2 clears ADDR */
    for (i = 0; i < len; i++) {
        if ((err = i2c_wait_sr1(I2C_SR1_TXE)) != 0) {
            return i2c_finish(err);
        }
        I2C1_DR = data[i];
    }
    return i2c_finish(i2c_wait_sr1(I2C_SR1_BTF));
}

/* Register read of one byte (all the core needs): the F1 wants ACK cleared before ADDR is
 * cleared and STOP requested right after, or it clocks in a second byte. */
static int hal_i2c_read(void *ctx, uint8_t addr, uint8_t reg, uint8_t *out, uint8_t len)
{
    int err;

    (void)ctx;
    if (len != 1u) {
        return -ERR_INVAL;
    }
    if ((err = i2c_start((uint8_t)(addr << 1))) != 0) {
        return i2c_finish(err);
    }
    (void)I2C1_SR2;
    I2C1_DR = reg;
    if ((err = i2c_wait_sr1(I2C_SR1_BTF)) != 0) {
        return i2c_finish(err);
    }
    if ((err = i2c_start((uint8_t)((addr << 1) | 1u))) != 0) {
        return i2c_finish(err);
    }
    I2C1_CR1 &= ~I2C_CR1_ACK;
    {
        uint32_t primask = irq_save();
        (void)I2C1_SR2;
        I2C1_CR1 |= I2C_CR1_STOP;
        irq_restore(primask);
    }
    if ((err = i2c_wait_sr1(I2C_SR1_RXNE)) != 0) {
        return err;
    }
    *out = (uint8_t)I2C1_DR;
    return 0;
}

static void i2c_init(void);

/* Bus recovery (I2C-bus specification §3.1.16): PB6 (SCL) and PB7 (SDA) as open-drain GPIO,
 * clock SCL until the slave releases SDA (at most 9 times), a STOP, then I2C1 back. */
#define SCL_PIN THRUM_PIN_SCL
#define SDA_PIN THRUM_PIN_SDA
#define HALF_BIT_US 5u


static void pin_b(uint32_t pin, int high)
{
    GPIOB_BSRR = high ? (1u << pin) : (1u << (pin + 16u));
}

static int hal_i2c_recover(void *ctx)
{
    uint8_t i;
    uint32_t mask = ((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(SCL_PIN)) | ((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(SDA_PIN));

    I2C1_CR1 = 0;
    pin_b(SCL_PIN, 1);
    pin_b(SDA_PIN, 1);
    GPIOB_CRL = (GPIOB_CRL & ~mask) | ((uint32_t)GPIO_OUTPUT_OPEN_DRAIN_2MHZ << GPIO_SHIFT(SCL_PIN)) |
                ((uint32_t)GPIO_OUTPUT_OPEN_DRAIN_2MHZ << GPIO_SHIFT(SDA_PIN));
    for (i = 0; i < 9u && (GPIOB_IDR & (1u << SDA_PIN)) == 0u; i++) {
        pin_b(SCL_PIN, 0);
        hal_delay_us(ctx, HALF_BIT_US);
        pin_b(SCL_PIN, 1);
        hal_delay_us(ctx, HALF_BIT_US);
    }
    pin_b(SCL_PIN, 0); /* STOP: SDA low while SCL is low, SCL up, then SDA up */
    pin_b(SDA_PIN, 0);
    hal_delay_us(ctx, HALF_BIT_US);
    pin_b(SCL_PIN, 1);
    hal_delay_us(ctx, HALF_BIT_US);
    pin_b(SDA_PIN, 1);
    hal_delay_us(ctx, HALF_BIT_US);
    i = (GPIOB_IDR & (1u << SDA_PIN)) != 0u;
    GPIOB_CRL = (GPIOB_CRL & ~mask) | ((uint32_t)GPIO_AF_OPEN_DRAIN_50MHZ << GPIO_SHIFT(SCL_PIN)) |
                ((uint32_t)GPIO_AF_OPEN_DRAIN_50MHZ << GPIO_SHIFT(SDA_PIN));
    i2c_init();
    return i ? 0 : -ERR_IO;
}

/* ---- internal flash: the library storage (RM0008 §3.3.3, PM0075) ------------------------------ */
#if THRUM_FW_LIBRARY

/* From the linker script: the pages after the image. */
extern const uint8_t _storage_start[];
extern const uint8_t _storage_end[];

#define FLASH_ERRORS (FLASH_SR_PGERR | FLASH_SR_WRPRTERR)

/*
 * Start one flash operation and wait for it to end: the half-word write to `at` (programming, PG
 * set) or, with `at` NULL, STRT (a page erase, PER and AR set). While the flash is busy every
 * fetch from it stalls the CPU: 20-40 ms for a page erase, 40-70 µs per half-word, longer than a
 * byte at 115 200 baud (87 µs) and than a SysTick period. So this runs from RAM (.ramfunc, copied
 * by Reset_Handler) with interrupts masked, and does meanwhile what the USART1 and SysTick
 * handlers (in flash) would: received bytes go into the RX ring with their arrival time, queued
 * bytes go out, SysTick wraps are counted. It calls nothing in flash. Returns the error flags.
 */
__attribute__((section(".ramfunc"), noinline, long_call)) static uint32_t flash_run(volatile uint16_t *at, uint16_t value)
{
    uint32_t primask;
    uint32_t sr;

    __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
    if (at != NULL) {
        *at = value;
    } else {
        FLASH_CR |= FLASH_CR_STRT;
    }
    do {
        uint32_t usr = USART1_SR;

        if ((SCB_ICSR & SCB_ICSR_PENDSTSET) != 0u) {
            SCB_ICSR = SCB_ICSR_PENDSTCLR; /* the wrap SysTick_Handler would have counted */
            systick_ms++;
        }
        if ((usr & (USART_SR_RXNE | USART_SR_ORE)) != 0u) {
            uint8_t byte = (uint8_t)USART1_DR;
            THRUM_PORT_INDEX_T next = THRUM_PORT_WRAP(rx.head + 1u, THRUM_PORT_RX_RING);

            if (next != rx.tail) { /* as thrum_port_rx_push, which lives in flash */
                uint32_t ms = systick_ms;
                uint32_t count = SYST_CVR;

                if ((SCB_ICSR & SCB_ICSR_PENDSTSET) != 0u) { /* wrapped since the check above */
                    count = SYST_CVR;
                    ms++;
                }
                rx.buf[rx.head] = byte;
                rx.head = next;
                rx.last_time = ms * 1000u + (SYST_RVR - count) / core_mhz; /* as hal_clock_us */
            }
        }
        if ((USART1_CR1 & USART_CR1_TXEIE) != 0u && (usr & USART_SR_TXE) != 0u && tx.tail != tx.head) {
            USART1_DR = tx.buf[tx.tail]; /* as thrum_port_tx_pop */
            tx.tail = THRUM_PORT_WRAP(tx.tail + 1u, THRUM_PORT_TX_RING);
        }
        sr = FLASH_SR;
    } while ((sr & FLASH_SR_BSY) != 0u);
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return sr & FLASH_ERRORS;
}

/* Unlock the flash controller and clear its old flags; `mode` is PG or PER. */
static void flash_begin(uint32_t mode)
{
    while ((FLASH_SR & FLASH_SR_BSY) != 0u) {
    }
    if ((FLASH_CR & FLASH_CR_LOCK) != 0u) {
        FLASH_KEYR = FLASH_KEY1;
        FLASH_KEYR = FLASH_KEY2;
    }
    FLASH_SR = FLASH_ERRORS | FLASH_SR_EOP; /* write 1 to clear */
    FLASH_CR = mode;
}

static void flash_end(void)
{
    FLASH_SR = FLASH_ERRORS | FLASH_SR_EOP;
    FLASH_CR = FLASH_CR_LOCK;
}

static uint32_t storage_size(void)
{
    return (uint32_t)(_storage_end - _storage_start);
}

static int hal_storage_read(void *ctx, uint32_t addr, uint8_t *out, uint16_t len)
{
    const volatile uint8_t *from = _storage_start + addr; /* memory-mapped; changed by the HAL */
    uint16_t i;

    (void)ctx;
    if (addr > storage_size() || len > storage_size() - addr) {
        return -ERR_INVAL;
    }
    for (i = 0; i < len; i++) {
        out[i] = from[i];
    }
    return 0;
}

/* Program `len` bytes at `addr` (even, inside one page, erased): half-word by half-word, an odd
 * last byte with 0xFF above it. A half-word that does not read 0xFFFF first, a PGERR or WRPRTERR,
 * or one that does not read back as written fails the call. */
static int hal_storage_write(void *ctx, uint32_t addr, const uint8_t *data, uint16_t len)
{
    volatile uint16_t *at = (volatile uint16_t *)(uintptr_t)(_storage_start + addr);
    int err = 0;
    uint16_t i;

    (void)ctx;
    if (len == 0u || addr % 2u != 0u || addr > storage_size() || len > storage_size() - addr ||
        addr / FLASH_PAGE != (addr + len - 1u) / FLASH_PAGE) {
        return -ERR_INVAL;
    }
    flash_begin(FLASH_CR_PG);
    for (i = 0; i < len && err == 0; i += 2u, at++) {
        uint16_t value = (uint16_t)(data[i] | (i + 1u < len ? data[i + 1u] : 0xFFu) << 8);

        if (*at != 0xFFFFu || flash_run(at, value) != 0u || *at != value) {
            err = -ERR_IO;
        }
    }
    flash_end();
    return err;
}

/* Erase the 1 KB page at `addr` and check that it reads 0xFF throughout. */
static int hal_storage_erase(void *ctx, uint32_t addr)
{
    const volatile uint32_t *word = (const volatile uint32_t *)(uintptr_t)(_storage_start + addr);
    uint32_t err;
    uint16_t i;

    (void)ctx;
    if (addr % FLASH_PAGE != 0u || addr >= storage_size()) {
        return -ERR_INVAL;
    }
    flash_begin(FLASH_CR_PER);
    FLASH_AR = (uint32_t)(uintptr_t)(_storage_start + addr);
    err = flash_run(NULL, 0u);
    flash_end();
    for (i = 0; i < FLASH_PAGE / 4u && err == 0u; i++) {
        if (word[i] != 0xFFFFFFFFu) {
            err = 1u;
        }
    }
    return err != 0u ? -ERR_IO : 0;
}
#endif /* THRUM_FW_LIBRARY */

#define EN_PIN THRUM_PIN_EN

static void hal_driver_enable(void *ctx, uint8_t on)
{
    (void)ctx;
    GPIOA_BSRR = on ? (1u << EN_PIN) : (1u << (EN_PIN + 16u));
}

/* Called from the fault handlers (startup.c): the driver keeps its last RTP value, so cut it off
 * (EN low: shutdown within the driver's EN response; I2C1 reset so a half-done transfer cannot
 * hold the bus) and reset; the firmware then boots into a silent, freshly set-up driver. */
void board_fault(void)
{
    hal_driver_enable(NULL, 0);
    RCC_APB1RSTR |= RCC_APB1RSTR_I2C1RST;
    RCC_APB1RSTR &= ~RCC_APB1RSTR_I2C1RST;
    SCB_AIRCR = SCB_AIRCR_SYSRESETREQ;
    for (;;) {
    }
}

static void iwdg_start(void)
{
    IWDG_KR = IWDG_KEY_START;
    IWDG_KR = IWDG_KEY_UNLOCK;
    IWDG_PR = IWDG_PR_DIV32;   /* 40 kHz / 32 = 1.25 kHz */
    IWDG_RLR = 312u;           /* 250 ms (LSI tolerance 30..60 kHz: 167..333 ms) */
    IWDG_KR = IWDG_KEY_RELOAD;
}

/* ---- set-up and main loop -------------------------------------------------------------------- */

static void clock_init(void)
{
    uint32_t guard = HSE_STARTUP_LOOPS;

    RCC_CR |= RCC_CR_HSEON;
    while ((RCC_CR & RCC_CR_HSERDY) == 0u) {
        if (--guard == 0u) {
            return; /* no crystal: stay on the 8 MHz HSI; timing still works, just slower */
        }
    }
    FLASH_ACR = FLASH_ACR_PRFTBE | FLASH_ACR_LATENCY_2;
    RCC_CFGR = RCC_CFGR_PLLSRC_HSE | RCC_CFGR_PLLMUL_9 | RCC_CFGR_PPRE1_DIV2;
    RCC_CR |= RCC_CR_PLLON;
    while ((RCC_CR & RCC_CR_PLLRDY) == 0u) {
    }
    RCC_CFGR |= RCC_CFGR_SW_PLL;
    while ((RCC_CFGR & RCC_CFGR_SWS_MASK) != RCC_CFGR_SWS_PLL) {
    }
    core_hz = CORE_HZ_PLL;
    core_mhz = CORE_HZ_PLL / 1000000u;
}

static void systick_init(void)
{
    SYST_RVR = core_hz / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_CLKSOURCE_CPU | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}

static void gpio_init(void)
{
    RCC_APB2ENR |= RCC_APB2ENR_AFIOEN | RCC_APB2ENR_IOPAEN | RCC_APB2ENR_IOPBEN | RCC_APB2ENR_USART1EN;
    RCC_APB1ENR |= RCC_APB1ENR_I2C1EN;
    GPIOA_CRH = (GPIOA_CRH & ~((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(THRUM_PIN_TX)) & ~((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(THRUM_PIN_RX))) |
                ((uint32_t)GPIO_AF_PUSH_PULL_50MHZ << GPIO_SHIFT(THRUM_PIN_TX)) | ((uint32_t)GPIO_INPUT_FLOATING << GPIO_SHIFT(THRUM_PIN_RX));
    GPIOB_CRL = (GPIOB_CRL & ~((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(SCL_PIN)) & ~((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(SDA_PIN))) |
                ((uint32_t)GPIO_AF_OPEN_DRAIN_50MHZ << GPIO_SHIFT(SCL_PIN)) | ((uint32_t)GPIO_AF_OPEN_DRAIN_50MHZ << GPIO_SHIFT(SDA_PIN));
    GPIOA_CRH = (GPIOA_CRH & ~((uint32_t)GPIO_CNF_MODE_MASK << GPIO_SHIFT(EN_PIN))) |
                ((uint32_t)GPIO_OUTPUT_PUSH_PULL_2MHZ << GPIO_SHIFT(EN_PIN));
}

static void usart_init(void)
{
    /* USART1 sits on APB2, which runs at the core clock */
    USART1_BRR = (core_hz + BAUD / 2u) / BAUD;
    USART1_CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE | USART_CR1_RXNEIE;
    NVIC_ISER(USART1_IRQN / 32u) = 1u << (USART1_IRQN % 32u);
}

static void i2c_init(void)
{
    /* APB1 is the core clock / 2 on the PLL, or the HSI itself */
    uint32_t pclk1 = core_hz == CORE_HZ_PLL ? core_hz / 2u : core_hz;
    uint32_t mhz = pclk1 / 1000000u;

    I2C1_CR1 = I2C_CR1_SWRST;
    I2C1_CR1 = 0;
    I2C1_CR2 = mhz;
    /* fast mode, duty 2:1: SCL period = 3 * CCR / pclk1 */
    I2C1_CCR = I2C_CCR_FS | (pclk1 / (3u * I2C_HZ));
    I2C1_TRISE = mhz * 300u / 1000u + 1u; /* 300 ns maximum rise time in fast mode */
    I2C1_CR1 = I2C_CR1_PE;
}

static void kick_watchdog(void)
{
    IWDG_KR = IWDG_KEY_RELOAD;
}

int main(void)
{
    static const thrum_hal_t hal = {
        NULL, hal_clock_us, hal_i2c_write, hal_i2c_read, hal_serial_write, hal_delay_us,
        hal_i2c_recover, hal_driver_enable, hal_serial_room,
#if THRUM_FW_LIBRARY
        /* the library in the internal flash; no trigger inputs wired on this port yet */
        hal_storage_read, hal_storage_write, hal_storage_erase, NULL,
#endif
    };
    thrum_board_t board = {
        0u, THRUM_BOARD_RATED_VOLTAGE, THRUM_BOARD_OD_CLAMP, THRUM_BOARD_DRIVE_TIME, THRUM_BOARD_OL_LRA_PERIOD,
#if THRUM_FW_LIBRARY
        0u, FLASH_PAGE, /* storage size (below) and page */
#endif
    };

#if THRUM_FW_LIBRARY
    board.storage_size = storage_size();
#endif

    clock_init();
    systick_init();
    gpio_init();
    usart_init();
    i2c_init();
    thrum_fw_init(&fw, &hal, &board);
    iwdg_start();
    thrum_port_run(&fw, &rx, &hal, kick_watchdog);
}
