/*
 * The few STM32F103 and Cortex-M3 registers this port touches (RM0008, PM0056), as plain
 * addresses: no vendor headers needed to build.
 */
#ifndef THRUM_STM32F103_H
#define THRUM_STM32F103_H

#include <stdint.h>

#define REG32(addr) (*(volatile uint32_t *)(addr))

/* ---- Cortex-M3 core ---- */
#define SYST_CSR REG32(0xE000E010u)
#define SYST_RVR REG32(0xE000E014u)
#define SYST_CVR REG32(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE_CPU (1u << 2)
#define SCB_ICSR REG32(0xE000ED04u)
#define SCB_ICSR_PENDSTSET (1u << 26)
#define SCB_ICSR_PENDSTCLR (1u << 25)
#define NVIC_ISER(n) REG32(0xE000E100u + 4u * (n))

/* ---- RCC ---- */
#define RCC_BASE 0x40021000u
#define RCC_CR REG32(RCC_BASE + 0x00u)
#define RCC_CFGR REG32(RCC_BASE + 0x04u)
#define RCC_APB2ENR REG32(RCC_BASE + 0x18u)
#define RCC_APB1ENR REG32(RCC_BASE + 0x1Cu)
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_PLLON (1u << 24)
#define RCC_CR_PLLRDY (1u << 25)
#define RCC_CFGR_SW_PLL (2u << 0)
#define RCC_CFGR_SWS_MASK (3u << 2)
#define RCC_CFGR_SWS_PLL (2u << 2)
#define RCC_CFGR_PPRE1_DIV2 (4u << 8)
#define RCC_CFGR_PLLSRC_HSE (1u << 16)
#define RCC_CFGR_PLLMUL_9 (7u << 18)
#define RCC_APB2ENR_AFIOEN (1u << 0)
#define RCC_APB2ENR_IOPAEN (1u << 2)
#define RCC_APB2ENR_IOPBEN (1u << 3)
#define RCC_APB2ENR_USART1EN (1u << 14)
#define RCC_APB1ENR_I2C1EN (1u << 21)

/* ---- Flash interface (RM0008 §3.3.3, PM0075 §2.3, §3) ---- */
#define FLASH_ACR REG32(0x40022000u)
#define FLASH_ACR_LATENCY_2 (2u << 0)
#define FLASH_ACR_PRFTBE (1u << 4)
#define FLASH_KEYR REG32(0x40022004u)
#define FLASH_SR REG32(0x4002200Cu)
#define FLASH_CR REG32(0x40022010u)
#define FLASH_AR REG32(0x40022014u)
#define FLASH_KEY1 0x45670123u
#define FLASH_KEY2 0xCDEF89ABu
#define FLASH_SR_BSY (1u << 0)
#define FLASH_SR_PGERR (1u << 2)     /* programming a half-word that does not read 0xFFFF */
#define FLASH_SR_WRPRTERR (1u << 4)  /* the page is write-protected */
#define FLASH_SR_EOP (1u << 5)
#define FLASH_CR_PG (1u << 0)
#define FLASH_CR_PER (1u << 1)
#define FLASH_CR_STRT (1u << 6)
#define FLASH_CR_LOCK (1u << 7)
/* Medium-density parts (F103x8, F103xB): 1 KiB pages. */
#define FLASH_PAGE 1024u

/* ---- GPIO (CRL: pins 0-7, CRH: pins 8-15; 4 bits per pin) ---- */
#define GPIOA_CRH REG32(0x40010804u)
#define GPIOB_CRL REG32(0x40010C00u)
#define GPIO_CNF_MODE_MASK 0xFu
#define GPIO_AF_PUSH_PULL_50MHZ 0xBu
#define GPIO_AF_OPEN_DRAIN_50MHZ 0xFu
#define GPIO_INPUT_FLOATING 0x4u
#define GPIO_SHIFT(pin) (4u * ((pin) % 8u))

/* ---- USART1 ---- */
#define USART1_BASE 0x40013800u
#define USART1_SR REG32(USART1_BASE + 0x00u)
#define USART1_DR REG32(USART1_BASE + 0x04u)
#define USART1_BRR REG32(USART1_BASE + 0x08u)
#define USART1_CR1 REG32(USART1_BASE + 0x0Cu)
#define USART_SR_ORE (1u << 3)
#define USART_SR_RXNE (1u << 5)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_RXNEIE (1u << 5)
#define USART_CR1_TXEIE (1u << 7)
#define USART_CR1_UE (1u << 13)
#define USART1_IRQN 37u

/* ---- I2C1 ---- */
#define I2C1_BASE 0x40005400u
#define I2C1_CR1 REG32(I2C1_BASE + 0x00u)
#define I2C1_CR2 REG32(I2C1_BASE + 0x04u)
#define I2C1_DR REG32(I2C1_BASE + 0x10u)
#define I2C1_SR1 REG32(I2C1_BASE + 0x14u)
#define I2C1_SR2 REG32(I2C1_BASE + 0x18u)
#define I2C1_CCR REG32(I2C1_BASE + 0x1Cu)
#define I2C1_TRISE REG32(I2C1_BASE + 0x20u)
#define I2C_CR1_PE (1u << 0)
#define I2C_CR1_START (1u << 8)
#define I2C_CR1_STOP (1u << 9)
#define I2C_CR1_ACK (1u << 10)
#define I2C_CR1_SWRST (1u << 15)
#define I2C_SR1_SB (1u << 0)
#define I2C_SR1_ADDR (1u << 1)
#define I2C_SR1_BTF (1u << 2)
#define I2C_SR1_RXNE (1u << 6)
#define I2C_SR1_TXE (1u << 7)
#define I2C_SR1_BERR (1u << 8)
#define I2C_SR1_ARLO (1u << 9)
#define I2C_SR1_AF (1u << 10)
#define I2C_SR1_ERRORS (I2C_SR1_BERR | I2C_SR1_ARLO | I2C_SR1_AF)
#define I2C_SR2_BUSY (1u << 1)
#define I2C_CCR_FS (1u << 15)

/* GPIO data registers (RM0008 §9.2). */
#define GPIOA_BSRR REG32(0x40010810u)
#define GPIOB_IDR REG32(0x40010C08u)
#define GPIOB_BSRR REG32(0x40010C10u)
#define GPIO_OUTPUT_PUSH_PULL_2MHZ 0x2u
#define GPIO_OUTPUT_OPEN_DRAIN_2MHZ 0x6u

/* Independent watchdog, clocked by the ~40 kHz LSI (RM0008 §19). */
#define IWDG_KR REG32(0x40003000u)
#define IWDG_PR REG32(0x40003004u)
#define IWDG_RLR REG32(0x40003008u)
#define IWDG_KEY_START 0xCCCCu
#define IWDG_KEY_UNLOCK 0x5555u
#define IWDG_KEY_RELOAD 0xAAAAu
#define IWDG_PR_DIV32 3u

/* Reset: RCC APB1 reset register, and the core's system reset request (ARMv7-M B3.2.6). */
#define RCC_APB1RSTR REG32(RCC_BASE + 0x10u)
#define RCC_APB1RSTR_I2C1RST (1u << 21)
#define SCB_AIRCR REG32(0xE000ED0Cu)
#define SCB_AIRCR_SYSRESETREQ 0x05FA0004u

#endif
