/* Minimal Cortex-M3 start-up: vector table, .data/.bss set-up, then main. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;

int main(void);
void Reset_Handler(void);
void Default_Handler(void);
void Fault_Handler(void);
void board_fault(void);
void SysTick_Handler(void);
void USART1_IRQHandler(void);

#define VECTORS (16u + 60u) /* core exceptions + STM32F103 medium-density interrupts */
#define VECTOR_SYSTICK 15u
#define VECTOR_USART1 (16u + 37u)

void Reset_Handler(void)
{
    uint32_t *src = &_sidata;
    uint32_t *dst;

    for (dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0u;
    }
    (void)main();
    for (;;) {
    }
}

/* An unexpected interrupt: treated as a fault. */
void Default_Handler(void)
{
    board_fault();
}

/* HardFault, MemManage, BusFault, UsageFault: silence the driver and reset (board.c). */
void Fault_Handler(void)
{
    board_fault();
}

typedef void (*vector_t)(void);

__attribute__((section(".isr_vector"), used)) const vector_t vector_table[VECTORS] = {
    [0] = (vector_t)(uintptr_t)&_estack,
    [1] = Reset_Handler,
    [2] = Default_Handler,  /* NMI */
    [3] = Fault_Handler,    /* HardFault */
    [4] = Fault_Handler,    /* MemManage */
    [5] = Fault_Handler,    /* BusFault */
    [6] = Fault_Handler,    /* UsageFault */
    [11] = Default_Handler, /* SVCall */
    [14] = Default_Handler, /* PendSV */
    [VECTOR_SYSTICK] = SysTick_Handler,
    [VECTOR_USART1] = USART1_IRQHandler,
};
