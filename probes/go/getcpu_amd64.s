#include "textflag.h"

// SAFETY: both functions touch only registers and their own result slot. CPUID and RDTSCP clobber AX,
// BX, CX and DX, which Go's ABI0 lets an assembly function use freely (the ABI wrapper restores the
// registers ABIInternal reserves). RDTSCP is executed only after hasRDTSCP said the CPU has it
// (getcpu_amd64.go), so it cannot fault; TestTaskCpuIsThePinnedCpu checks the value it returns.

// func hasRDTSCP() bool: CPUID leaf 0x80000001 exists and its EDX bit 27 (RDTSCP) is set.
TEXT ·hasRDTSCP(SB), NOSPLIT, $0-1
	MOVL $0x80000000, AX
	CPUID
	CMPL AX, $0x80000001
	JCS  absent
	MOVL $0x80000001, AX
	XORL CX, CX
	CPUID
	SHRL $27, DX
	ANDL $1, DX
	MOVB DX, ret+0(FP)
	RET
absent:
	MOVB $0, ret+0(FP)
	RET

// func rdtscpAux() uint32: IA32_TSC_AUX, read by RDTSCP into ECX.
TEXT ·rdtscpAux(SB), NOSPLIT, $0-4
	RDTSCP
	MOVL CX, ret+0(FP)
	RET
