// SPDX-License-Identifier: GPL-2.0
/*
 * The container, pod or systemd unit a cgroup path shows.  Paths are the
 * kernel's, read from /proc or the mount: nothing in them is trusted, and
 * a component that almost matches (a short id, upper case, a conmon
 * scope) names nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgroup_int.h"

static bool is_hex64(const char *s, size_t n)
{
	size_t i;

	if (n != GL_CG_ID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* prefix + 64 hex + suffix, exactly: the id into @id */
static bool match_id(const char *c, size_t n, const char *prefix,
		     const char *suffix, char *id)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (n != p + GL_CG_ID_LEN + s || strncmp(c, prefix, p) ||
	    strncmp(c + n - s, suffix, s) || !is_hex64(c + p, GL_CG_ID_LEN))
		return false;
	memcpy(id, c + p, GL_CG_ID_LEN);
	id[GL_CG_ID_LEN] = '\0';
	return true;
}

static bool ends_with(const char *c, size_t n, const char *suffix)
{
	size_t s = strlen(suffix);

	return n > s && !strncmp(c + n - s, suffix, s);
}

/* A pod uid: hex digits and '-' (cgroupfs) or '_' (systemd), 32 hex. */
static bool pod_uid(const char *c, size_t n, char *pod, size_t plen)
{
	size_t i, hex = 0;

	if (!n || n >= plen)
		return false;
	for (i = 0; i < n; i++) {
		if ((c[i] >= '0' && c[i] <= '9') || (c[i] >= 'a' && c[i] <= 'f'))
			hex++;
		else if (c[i] != '-' && c[i] != '_')
			return false;
	}
	if (hex != 32)
		return false;
	for (i = 0; i < n; i++)
		pod[i] = c[i] == '_' ? '-' : c[i];
	pod[n] = '\0';
	return true;
}

/* "kubepods[-QOS]-podUID.slice" (systemd) or "podUID" (cgroupfs) */
static bool match_pod(const char *c, size_t n, bool under_kubepods, char *pod,
		      size_t plen)
{
	const char *p;

	if (n > 6 && !strncmp(c, "kubepods", 8) && ends_with(c, n, ".slice")) {
		p = memmem(c, n, "-pod", 4);
		if (!p)
			return false;
		p += 4;
		return pod_uid(p, c + n - 6 - p, pod, plen);
	}
	if (under_kubepods && n > 3 && !strncmp(c, "pod", 3))
		return pod_uid(c + 3, n - 3, pod, plen);
	return false;
}

/* user-UID.slice, UID decimal */
static bool match_user(const char *c, size_t n, long *uid)
{
	size_t i;
	long v = 0;

	if (n <= 11 || strncmp(c, "user-", 5) || !ends_with(c, n, ".slice"))
		return false;
	for (i = 5; i < n - 6; i++) {
		if (c[i] < '0' || c[i] > '9' || v > 100000000L)
			return false;
		v = v * 10 + (c[i] - '0');
	}
	*uid = v;
	return true;
}

static void set_container(struct gl_cg_name *n, enum gl_cg_kind k,
			  const char *id)
{
	n->kind = k;
	memcpy(n->id, id, sizeof(n->id));
}

/* gl_cg_name_path - see cgroup.h */
enum gl_cg_kind gl_cg_name_path(const char *path, struct gl_cg_name *n)
{
	bool kubepods = false, after_docker = false;
	char id[GL_CG_ID_LEN + 1];
	const char *c = path, *e;
	size_t len;

	memset(n, 0, sizeof(*n));
	n->uid = -1;
	while (c && *c) {
		while (*c == '/')
			c++;
		if (!*c)
			break;
		e = strchr(c, '/');
		len = e ? (size_t)(e - c) : strlen(c);
		if (match_id(c, len, "docker-", ".scope", id) ||
		    (after_docker && match_id(c, len, "", "", id)))
			set_container(n, GL_CG_DOCKER, id);
		else if (match_id(c, len, "cri-containerd-", ".scope", id))
			set_container(n, GL_CG_CONTAINERD, id);
		else if (match_id(c, len, "crio-", ".scope", id))
			set_container(n, GL_CG_CRIO, id);
		else if (match_id(c, len, "libpod-", ".scope", id))
			set_container(n, GL_CG_PODMAN, id);
		else if (kubepods && n->pod[0] && match_id(c, len, "", "", id))
			set_container(n, GL_CG_KUBE, id);
		else if (match_pod(c, len, kubepods, n->pod, sizeof(n->pod)))
			;
		else if (match_user(c, len, &n->uid))
			;
		else if ((ends_with(c, len, ".service") ||
			  ends_with(c, len, ".scope")) && len < sizeof(n->unit)) {
			memcpy(n->unit, c, len);
			n->unit[len] = '\0';
		}
		after_docker = len == 6 && !strncmp(c, "docker", 6);
		if (len >= 8 && !strncmp(c, "kubepods", 8))
			kubepods = true;
		c = e;
	}
	if (n->kind == GL_CG_NONE && n->uid >= 0)
		n->kind = GL_CG_USER;
	else if (n->kind == GL_CG_NONE && n->unit[0])
		n->kind = GL_CG_UNIT;
	return n->kind;
}

/* gl_cg_kind_name - see cgroup.h */
const char *gl_cg_kind_name(enum gl_cg_kind k)
{
	static const char *const names[] = {
		[GL_CG_NONE] = "", [GL_CG_DOCKER] = "docker",
		[GL_CG_CONTAINERD] = "containerd", [GL_CG_CRIO] = "cri-o",
		[GL_CG_PODMAN] = "podman", [GL_CG_KUBE] = "kubernetes",
		[GL_CG_UNIT] = "unit", [GL_CG_USER] = "user",
	};

	return (unsigned int)k < sizeof(names) / sizeof(names[0]) ? names[k] : "";
}

/* gl_cg_name_text - see cgroup.h */
const char *gl_cg_name_text(char *buf, size_t len, const struct gl_cg_name *n)
{
	switch (n->kind) {
	case GL_CG_NONE:
		snprintf(buf, len, "%s", "");
		break;
	case GL_CG_UNIT:
		snprintf(buf, len, "unit %s", n->unit);
		break;
	case GL_CG_USER:
		snprintf(buf, len, "user %ld%s%s", n->uid,
			 n->unit[0] ? " unit " : "", n->unit);
		break;
	default:
		snprintf(buf, len, "%s %.*s%s%s", gl_cg_kind_name(n->kind),
			 GL_CG_SHORT_LEN, n->id, n->pod[0] ? " pod " : "",
			 n->pod);
		break;
	}
	return buf;
}

/* gl_cg_is_container - see cgroup.h */
bool gl_cg_is_container(enum gl_cg_kind k)
{
	return k != GL_CG_NONE && k != GL_CG_UNIT && k != GL_CG_USER;
}

/* gl_cg_name_v1_text - see cgroup.h */
enum gl_cg_kind gl_cg_name_v1_text(const char *text, size_t len,
				   const char *v2, struct gl_cg_name *n)
{
	struct gl_cg_name found = { .kind = GL_CG_NONE, .uid = -1 };
	char line[4096];
	size_t off = 0, l, lines = 0;
	const char *nl, *colon;

	memset(n, 0, sizeof(*n));
	n->uid = -1;
	while (off < len) {
		if (lines++ >= GL_CG_MAX_V1_LINES) {
			gl_cg_counters.v1_lines++;
			break;
		}
		nl = memchr(text + off, '\n', len - off);
		l = nl ? (size_t)(nl - (text + off)) : len - off;
		if (l < sizeof(line)) {
			memcpy(line, text + off, l);
			line[l] = '\0';
			/* "N:controllers:path"; "0::path" is the v2 line */
			colon = strchr(line, ':');
			colon = colon ? strchr(colon + 1, ':') : NULL;
			if (!strncmp(line, "0::", 3)) {
				if (v2 && strcmp(line + 3, v2)) {
					found.kind = GL_CG_NONE;  /* it moved */
					break;
				}
			} else if (colon && found.kind == GL_CG_NONE &&
				   gl_cg_is_container(gl_cg_name_path(colon + 1,
								      n))) {
				found = *n;
			}
		}
		off += l + 1;
	}
	if (found.kind == GL_CG_NONE) {
		memset(n, 0, sizeof(*n));
		n->uid = -1;
	} else {
		*n = found;
	}
	return n->kind;
}

/* gl_cg_name_v1 - see cgroup.h */
enum gl_cg_kind gl_cg_name_v1(const char *root_proc, pid_t pid,
			      const char *v2, struct gl_cg_name *n)
{
	char path[256], text[16384];
	size_t len = 0;
	FILE *f;

	memset(n, 0, sizeof(*n));
	n->uid = -1;
	snprintf(path, sizeof(path), "%s/%d/cgroup", root_proc, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return GL_CG_NONE;
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	return gl_cg_name_v1_text(text, len, v2, n);
}
