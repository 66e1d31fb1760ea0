/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exit reason names as the kernel spells them (Linux 6.18 arch/x86 kvm_exit print format):
 * X(code, "name"). Used when a recording carries no print format with its own table.
 */
#define VMT_VMX_EXIT_REASONS(X) \
	X(0, "EXCEPTION_NMI") \
	X(1, "EXTERNAL_INTERRUPT") \
	X(2, "TRIPLE_FAULT") \
	X(3, "INIT_SIGNAL") \
	X(4, "SIPI_SIGNAL") \
	X(7, "INTERRUPT_WINDOW") \
	X(8, "NMI_WINDOW") \
	X(9, "TASK_SWITCH") \
	X(10, "CPUID") \
	X(12, "HLT") \
	X(13, "INVD") \
	X(14, "INVLPG") \
	X(15, "RDPMC") \
	X(16, "RDTSC") \
	X(18, "VMCALL") \
	X(19, "VMCLEAR") \
	X(20, "VMLAUNCH") \
	X(21, "VMPTRLD") \
	X(22, "VMPTRST") \
	X(23, "VMREAD") \
	X(24, "VMRESUME") \
	X(25, "VMWRITE") \
	X(26, "VMOFF") \
	X(27, "VMON") \
	X(28, "CR_ACCESS") \
	X(29, "DR_ACCESS") \
	X(30, "IO_INSTRUCTION") \
	X(31, "MSR_READ") \
	X(32, "MSR_WRITE") \
	X(33, "INVALID_STATE") \
	X(34, "MSR_LOAD_FAIL") \
	X(36, "MWAIT_INSTRUCTION") \
	X(37, "MONITOR_TRAP_FLAG") \
	X(39, "MONITOR_INSTRUCTION") \
	X(40, "PAUSE_INSTRUCTION") \
	X(41, "MCE_DURING_VMENTRY") \
	X(43, "TPR_BELOW_THRESHOLD") \
	X(44, "APIC_ACCESS") \
	X(45, "EOI_INDUCED") \
	X(46, "GDTR_IDTR") \
	X(47, "LDTR_TR") \
	X(48, "EPT_VIOLATION") \
	X(49, "EPT_MISCONFIG") \
	X(50, "INVEPT") \
	X(51, "RDTSCP") \
	X(52, "PREEMPTION_TIMER") \
	X(53, "INVVPID") \
	X(54, "WBINVD") \
	X(55, "XSETBV") \
	X(56, "APIC_WRITE") \
	X(57, "RDRAND") \
	X(58, "INVPCID") \
	X(59, "VMFUNC") \
	X(60, "ENCLS") \
	X(61, "RDSEED") \
	X(62, "PML_FULL") \
	X(63, "XSAVES") \
	X(64, "XRSTORS") \
	X(67, "UMWAIT") \
	X(68, "TPAUSE") \
	X(74, "BUS_LOCK") \
	X(75, "NOTIFY") \
	X(77, "TDCALL") \
	X(84, "MSR_READ_IMM") \
	X(85, "MSR_WRITE_IMM")

#define VMT_SVM_EXIT_REASONS(X) \
	X(0x0ULL, "read_cr0") \
	X(0x2ULL, "read_cr2") \
	X(0x3ULL, "read_cr3") \
	X(0x4ULL, "read_cr4") \
	X(0x8ULL, "read_cr8") \
	X(0x10ULL, "write_cr0") \
	X(0x12ULL, "write_cr2") \
	X(0x13ULL, "write_cr3") \
	X(0x14ULL, "write_cr4") \
	X(0x18ULL, "write_cr8") \
	X(0x20ULL, "read_dr0") \
	X(0x21ULL, "read_dr1") \
	X(0x22ULL, "read_dr2") \
	X(0x23ULL, "read_dr3") \
	X(0x24ULL, "read_dr4") \
	X(0x25ULL, "read_dr5") \
	X(0x26ULL, "read_dr6") \
	X(0x27ULL, "read_dr7") \
	X(0x30ULL, "write_dr0") \
	X(0x31ULL, "write_dr1") \
	X(0x32ULL, "write_dr2") \
	X(0x33ULL, "write_dr3") \
	X(0x34ULL, "write_dr4") \
	X(0x35ULL, "write_dr5") \
	X(0x36ULL, "write_dr6") \
	X(0x37ULL, "write_dr7") \
	X(0x40ULL, "DE excp") \
	X(0x41ULL, "DB excp") \
	X(0x43ULL, "BP excp") \
	X(0x44ULL, "OF excp") \
	X(0x45ULL, "BR excp") \
	X(0x46ULL, "UD excp") \
	X(0x47ULL, "NM excp") \
	X(0x48ULL, "DF excp") \
	X(0x4aULL, "TS excp") \
	X(0x4bULL, "NP excp") \
	X(0x4cULL, "SS excp") \
	X(0x4dULL, "GP excp") \
	X(0x4eULL, "PF excp") \
	X(0x50ULL, "MF excp") \
	X(0x51ULL, "AC excp") \
	X(0x52ULL, "MC excp") \
	X(0x53ULL, "XF excp") \
	X(0x60ULL, "interrupt") \
	X(0x61ULL, "nmi") \
	X(0x62ULL, "smi") \
	X(0x63ULL, "init") \
	X(0x64ULL, "vintr") \
	X(0x65ULL, "cr0_sel_write") \
	X(0x66ULL, "read_idtr") \
	X(0x67ULL, "read_gdtr") \
	X(0x68ULL, "read_ldtr") \
	X(0x69ULL, "read_rt") \
	X(0x6aULL, "write_idtr") \
	X(0x6bULL, "write_gdtr") \
	X(0x6cULL, "write_ldtr") \
	X(0x6dULL, "write_rt") \
	X(0x6eULL, "rdtsc") \
	X(0x6fULL, "rdpmc") \
	X(0x70ULL, "pushf") \
	X(0x71ULL, "popf") \
	X(0x72ULL, "cpuid") \
	X(0x73ULL, "rsm") \
	X(0x74ULL, "iret") \
	X(0x75ULL, "swint") \
	X(0x76ULL, "invd") \
	X(0x77ULL, "pause") \
	X(0x78ULL, "hlt") \
	X(0x79ULL, "invlpg") \
	X(0x7aULL, "invlpga") \
	X(0x7bULL, "io") \
	X(0x7cULL, "msr") \
	X(0x7dULL, "task_switch") \
	X(0x7eULL, "ferr_freeze") \
	X(0x7fULL, "shutdown") \
	X(0x80ULL, "vmrun") \
	X(0x81ULL, "hypercall") \
	X(0x82ULL, "vmload") \
	X(0x83ULL, "vmsave") \
	X(0x84ULL, "stgi") \
	X(0x85ULL, "clgi") \
	X(0x86ULL, "skinit") \
	X(0x87ULL, "rdtscp") \
	X(0x88ULL, "icebp") \
	X(0x89ULL, "wbinvd") \
	X(0x8aULL, "monitor") \
	X(0x8bULL, "mwait") \
	X(0x8dULL, "xsetbv") \
	X(0x8fULL, "write_efer_trap") \
	X(0x90ULL, "write_cr0_trap") \
	X(0x94ULL, "write_cr4_trap") \
	X(0x98ULL, "write_cr8_trap") \
	X(0xa2ULL, "invpcid") \
	X(0xa5ULL, "buslock") \
	X(0xa6ULL, "idle-halt") \
	X(0x400ULL, "npf") \
	X(0x401ULL, "avic_incomplete_ipi") \
	X(0x402ULL, "avic_unaccelerated_access") \
	X(0x403ULL, "vmgexit") \
	X(0x80000001ULL, "vmgexit_mmio_read") \
	X(0x80000002ULL, "vmgexit_mmio_write") \
	X(0x80000003ULL, "vmgexit_nmi_complete") \
	X(0x80000004ULL, "vmgexit_ap_hlt_loop") \
	X(0x80000005ULL, "vmgexit_ap_jump_table") \
	X(0x80000010ULL, "vmgexit_page_state_change") \
	X(0x80000011ULL, "vmgexit_guest_request") \
	X(0x80000012ULL, "vmgexit_ext_guest_request") \
	X(0x80000013ULL, "vmgexit_ap_creation") \
	X(0x8000fffdULL, "vmgexit_hypervisor_feature") \
	X(0xffffffffULL, "invalid_guest_state")	/* -1 in a u32 field */
