// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmfind_cli (tests only): what common/vmfind finds for a --vm spec, as one JSON object on
 * stdout, for the end-to-end test to compare with what fakevmm says of itself:
 *   {"vms":[{"name":..,"pid":..,"how":..,"method":..,"vcpu_fds":..,"by_order":..,"cpus":[..],
 *            "vcpus":[{"tid":..,"vcpu":..,"comm":..,"cpus":[..]}]}],
 *    "cpus":[..], "filter":"..." or null, "filter_error":"..." or null, "filter_max":N,
 *    "labels":{"<tid>":"<label read back from the metadata>"}}
 * Errors: "vmfind_cli: <message>" on stderr, exit 1.
 *
 *   vmfind_cli [--proc DIR] [--libvirt DIR] [--tries N] [--filter-max BYTES] SPECS
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "vmfind.h"

static void put_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_cpus(const struct vmt_cpulist *l)
{
	unsigned int i;

	putchar('[');
	for (i = 0; i < l->n; i++)
		printf("%s%u", i ? "," : "", l->cpu[i]);
	putchar(']');
}

int main(int argc, char **argv)
{
	struct vmt_vmfind_env env = { 0 };
	struct vmt_vmmap *map = NULL;
	struct vmt_vmfind f;
	struct vmt_kvbuf kb;
	size_t filter_max = vmt_vmfind_filter_max();
	char err[512], *filter = NULL;
	unsigned int i, j;
	int a, ret;

	for (a = 1; a + 1 < argc && !strncmp(argv[a], "--", 2); a += 2) {
		if (!strcmp(argv[a], "--proc"))
			env.proc_root = argv[a + 1];
		else if (!strcmp(argv[a], "--libvirt"))
			env.libvirt_dir = argv[a + 1];
		else if (!strcmp(argv[a], "--tries"))
			env.kvm_run_tries = (unsigned int)atoi(argv[a + 1]);
		else if (!strcmp(argv[a], "--filter-max"))
			filter_max = (size_t)atol(argv[a + 1]);
		else
			break;
	}
	if (a != argc - 1) {
		fprintf(stderr, "usage: vmfind_cli [--proc DIR] [--libvirt DIR] [--tries N] "
			"[--filter-max BYTES] SPECS\n");
		return 2;
	}
	ret = vmt_vmfind_resolve(&env, argv[a], &f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vmfind_cli: %s\n", err);
		return 1;
	}

	printf("{\"vms\":[");
	for (i = 0; i < f.n_vm; i++) {
		const struct vmt_vm *vm = &f.vm[i];

		printf("%s{\"name\":", i ? "," : "");
		put_str(vm->name);
		printf(",\"pid\":%d,\"how\":\"%s\",\"method\":\"%s\",\"vcpu_fds\":%u,"
		       "\"by_order\":%u,\"cpus\":",
		       (int)vm->pid, vmt_vmfind_how_name(vm->how),
		       vmt_vmfind_method_name(vm->method), vm->n_vcpu_fds, vm->n_by_order);
		put_cpus(&vm->cpus);
		printf(",\"vcpus\":[");
		for (j = 0; j < vm->n_vcpu; j++) {
			printf("%s{\"tid\":%d,\"vcpu\":%u,\"comm\":", j ? "," : "",
			       (int)vm->vcpu[j].tid, vm->vcpu[j].vcpu);
			put_str(vm->vcpu[j].comm);
			printf(",\"cpus\":");
			put_cpus(&vm->vcpu[j].allowed);
			putchar('}');
		}
		printf("]}");
	}
	printf("],\"cpus\":");
	put_cpus(&f.cpus);

	ret = vmt_vmfind_filter(&f, filter_max, &filter, err, sizeof(err));
	printf(",\"filter\":");
	if (ret)
		printf("null");
	else
		put_str(filter);
	printf(",\"filter_error\":");
	if (ret)
		put_str(err);
	else
		printf("null");
	printf(",\"filter_max\":%zu", vmt_vmfind_filter_max());
	free(filter);

	/* the labels a report would print, after a trip through the metadata encoding */
	vmt_kv_init(&kb);
	vmt_vmfind_to_meta(&f, &kb);
	ret = kb.error ? kb.error : vmt_vmmap_from_meta(kb.buf, kb.len, &map, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vmfind_cli: metadata: %s\n", kb.error ? "cannot encode" : err);
		vmt_kv_free(&kb);
		vmt_vmfind_free(&f);
		return 1;
	}
	printf(",\"labels\":{");
	for (i = 0, a = 0; i < f.n_vm; i++) {
		for (j = 0; j < f.vm[i].n_vcpu; j++) {
			char label[512];
			int tid = (int)f.vm[i].vcpu[j].tid;

			printf("%s\"%d\":", a++ ? "," : "", tid);
			if (vmt_vmmap_label(map, tid, label, sizeof(label)))
				put_str(label);
			else
				printf("null");
		}
	}
	printf("}}\n");
	vmt_vmmap_free(map);
	vmt_kv_free(&kb);
	vmt_vmfind_free(&f);
	return 0;
}
