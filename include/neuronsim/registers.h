#pragma once
// neuronsim's public API: the register map of a NeuronCore's `mmio` target socket
// (docs/vp-integration.md). Registers are 32 bits, little-endian, accessed with 4-byte
// aligned 4-byte transactions; the windows take any size. Offsets are from the socket's base.
#include <cstdint>

namespace neuronsim::reg {

// Identification (read-only).
inline constexpr uint64_t kMagic = 0x000;  // "NSIM" = 0x4d49534e
inline constexpr uint64_t kVersion = 0x004;  // major << 16 | minor << 8 | patch
inline constexpr uint64_t kNcVersion = 0x008;  // NeuronCore version 2..5
inline constexpr uint64_t kNumQueues = 0x00c;  // instruction queues (4 + (DMA engines + 1) x queues per engine)
inline constexpr uint64_t kGenerationName = 0x010;  // 16 bytes, NUL-padded ASCII ("MARIANA")
inline constexpr uint32_t kMagicValue = 0x4d49534e;

// Device state and control.
inline constexpr uint64_t kStatus = 0x020;  // R: kStatus* bits
inline constexpr uint64_t kControl = 0x024;  // W: kControlReset
inline constexpr uint64_t kIrqStatus = 0x028;  // R, write 1 to clear: kIrq* bits
inline constexpr uint64_t kIrqMask = 0x02c;  // RW: 1 enables the kIrq* source onto `irq`
inline constexpr uint32_t kStatusBusy = 1u << 0;  // some queue has work or an engine is executing
inline constexpr uint32_t kStatusError = 1u << 1;  // an error is latched; the engines are halted
inline constexpr uint32_t kControlReset = 1u << 0;  // clear the error, empty every queue, abandon all in flight (docs/vp-integration.md)
inline constexpr uint32_t kIrqDrained = 1u << 0;  // a queue drained (see kDrained)
inline constexpr uint32_t kIrqError = 1u << 1;  // an error was latched

// The latched error (read-only; valid while kStatusError).
inline constexpr uint64_t kErrorCode = 0x030;  // kError* codes
inline constexpr uint64_t kErrorQueue = 0x034;  // queue index of the failing instruction
inline constexpr uint64_t kErrorIndexLo = 0x038;  // its index in the queue's stream (64 bits)
inline constexpr uint64_t kErrorIndexHi = 0x03c;
inline constexpr uint64_t kErrorOpcode = 0x040;
inline constexpr uint64_t kErrorMessageLength = 0x044;  // bytes in kErrorMessage (without the NUL)
// kErrorQueueSetup is no longer latched: a bad queue value is refused when written (below).
inline constexpr uint32_t kErrorNone = 0, kErrorInstruction = 1, kErrorFetch = 2, kErrorQueueSetup = 3;

// Register writes the device refused (TLM_COMMAND_ERROR_RESPONSE or TLM_ADDRESS_ERROR_RESPONSE:
// a bad value, a queue that is busy, a read-only register, a hole). They change nothing and do
// not halt the core; these registers say why. Read-only; RESET clears them.
inline constexpr uint64_t kRefusedWrites = 0x048;  // writes refused since reset
inline constexpr uint64_t kRefusedWriteAddress = 0x04c;  // the offset of the last one
inline constexpr uint64_t kRefusedWriteValue = 0x050;  // the value it tried to write
inline constexpr uint64_t kRefusedWriteMessageLength = 0x054;  // bytes in kRefusedWriteMessage
inline constexpr uint64_t kRefusedWriteMessage = 0x100;  // 256 bytes, NUL-terminated text: why
inline constexpr uint64_t kRefusedWriteMessageBytes = 0x100;

// Where LoadActFuncSet finds the function sets in DRAM (act_sets.h).
inline constexpr uint64_t kActSetsBaseLo = 0x060;
inline constexpr uint64_t kActSetsBaseHi = 0x064;
inline constexpr uint64_t kActSetsCount = 0x068;

// Drained queues: bit q of word q / 32; write 1 to clear.
inline constexpr uint64_t kDrained = 0x080;  // 0x080 .. 0x0bf (up to 512 queues)

inline constexpr uint64_t kErrorMessage = 0x400;  // 1 KiB, NUL-terminated text
inline constexpr uint64_t kErrorMessageBytes = 0x400;
inline constexpr uint64_t kSemaphores = 0x800;  // 256 x signed 32-bit, RW
inline constexpr uint64_t kRegisters = 0xc00;  // 256 x 32-bit engine registers (REG_PTR operands), RW

// Instruction queues: a block of 0x20 bytes per queue q at kQueues + q * kQueueStride.
// Queue 0 is ACT, 1 is POOL, 2 + E * queues_per_engine + Q is DMA engine E queue Q (stream
// dma<E>.<Q>: every transfer on engine E), 2 + engines * queues_per_engine + Q is queue Q spread
// over the engines (stream dma.<Q>), then 2 + (engines + 1) * queues_per_engine is VectorE
// (stream dve) and the last, one more, TensorE (stream pe).
inline constexpr uint64_t kQueues = 0x1000;
inline constexpr uint64_t kQueueStride = 0x20;
// BASE and SIZE are written only while the queue is idle; a value outside the rule is refused.
inline constexpr uint64_t kQueueBaseLo = 0x00;  // RW: DRAM address of the ring (64-byte aligned)
inline constexpr uint64_t kQueueBaseHi = 0x04;
inline constexpr uint64_t kQueueSize = 0x08;  // RW: entries (64-byte bundles) in the ring, 2..2^24
inline constexpr uint64_t kQueueHead = 0x0c;  // R: next entry the engine fetches
inline constexpr uint64_t kQueueTail = 0x10;  // RW: one past the last valid entry, below SIZE; writing it rings the doorbell
inline constexpr uint64_t kQueueStatus = 0x14;  // R: kQueue* bits
inline constexpr uint64_t kQueueDoneLo = 0x18;  // R: instructions completed since reset (64 bits)
inline constexpr uint64_t kQueueDoneHi = 0x1c;
inline constexpr uint32_t kQueueBusy = 1u << 0;  // entries pending or one executing
inline constexpr uint32_t kQueueWaiting = 1u << 1;  // the engine waits on a semaphore
inline constexpr uint32_t kQueueHalted = 1u << 2;  // a halt instruction ended the stream (until reset)

// Windows onto the core's memories (any size and alignment; DMI is granted).
inline constexpr uint64_t kActTablesWindow = 0x0010'0000;  // the ACT table memory (CAM, PROFILE, CONTROL, BUCKET)
inline constexpr uint64_t kPsumWindow = 0x0100'0000;  // PSUM, partition x bytes per partition + offset
inline constexpr uint64_t kSbufWindow = 0x0400'0000;  // SBUF, likewise
inline constexpr uint64_t kMmioSize = 0x0800'0000;  // the socket's whole address range

}  // namespace neuronsim::reg
