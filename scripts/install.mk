# SPDX-License-Identifier: GPL-2.0
#
# gpulat installed like a real module.  Included by the top-level Makefile.
#
#   make install       the module (kbuild modules_install into updates/, then
#                      depmod, so that `modprobe gpulat` finds it), the tool,
#                      its man page, and the fleet files: the udev rule and
#                      the daemon's systemd units (scripts/fleet/)
#   make uninstall     remove exactly those, then depmod again
#   make dkms-src      the DKMS source tree: $(DKMS_SRCDIR)
#   make install-check the man page, install/uninstall into a DESTDIR and a
#                      DKMS build, against a cached Debian kernel (TAP lines)
#
# DESTDIR (staging root, default none) and PREFIX (default /usr/local) as
# usual.  KDIR is the kernel build tree (default: the running kernel's),
# KVER its release (default: read from KDIR).  The module goes under
# /lib/modules whatever PREFIX is: that is where modprobe looks.
#
# Parts: install-module, install-user, install-man, install-fleet and the
# same with uninstall-; all but install-module need no kernel headers.
# install-fleet creates no user or group and starts nothing: it prints
# what is left to do (Documentation/service.rst).

PREFIX ?= /usr/local
INSTALL ?= install

# The release modprobe must find the module under: the module's vermagic,
# from KDIR's utsrelease.h.  Not include/config/kernel.release: in Debian's
# header packages that holds the upstream version (6.1.192), while their
# Makefile overrides KERNELRELEASE with the package's (6.1.0-57-amd64).
KVER ?= $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null), \
	     $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null), \
	     $(shell uname -r))

INSTALL_MODDIR = $(DESTDIR)/lib/modules/$(KVER)/updates
INSTALL_BINDIR = $(DESTDIR)$(PREFIX)/sbin
INSTALL_MAN8DIR = $(DESTDIR)$(PREFIX)/share/man/man8
# The fleet files go where an administrator's own go, whatever PREFIX is;
# the units' ExecStart follows PREFIX.
INSTALL_UDEVDIR = $(DESTDIR)/etc/udev/rules.d
INSTALL_UNITDIR = $(DESTDIR)/etc/systemd/system
FLEET_RULES = 60-gpulat.rules
FLEET_UNITS = gpulat.service gpulat-bpf.service
# kbuild compresses the module as the kernel's config says.
INSTALL_MODNAMES = gpulat.ko gpulat.ko.xz gpulat.ko.zst gpulat.ko.gz

# depmod in /sbin, which a user's PATH may lack; -b for a staging root.
INSTALL_DEPMOD = PATH="$$PATH:/sbin:/usr/sbin" depmod \
		 $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)

GPULAT_PKG_VERSION = $(shell cat VERSION)
DKMS_SRCDIR ?= $(DESTDIR)/usr/src/gpulat-$(GPULAT_PKG_VERSION)

INSTALL_CHECK_KERNEL ?= 6.1

.PHONY: install uninstall install-module install-user install-man \
	install-fleet uninstall-module uninstall-user uninstall-man \
	uninstall-fleet dkms-src install-check

install: install-module install-user install-man install-fleet

uninstall: uninstall-module uninstall-user uninstall-man uninstall-fleet

# The module is built and installed with M=kmod (not the top, as `make`
# does): modules_install keeps the path below M, and kmod/gpulat.ko is
# to land in updates/, not updates/kmod/.  Kbuild signs the module when
# the kernel's config asks to and only with the kernel's own key; the
# header packages of distributions lack that key, so then it is not tried
# (sign with a MOK key instead: Documentation/install.rst).
install-module:
	@test -d "$(KDIR)" || { echo "install: no kernel build tree at" \
	  "$(KDIR); set KDIR, or install the headers of $(KVER)" \
	  "(make install-user install-man need none)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules
	@key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$$/\1/p' \
		$(KDIR)/.config 2>/dev/null); \
	case $$key in pkcs11:* | /*) ;; ?*) key=$(KDIR)/$$key ;; esac; \
	nosign=CONFIG_MODULE_SIG_ALL=; \
	case $$key in pkcs11:*) nosign= ;; *) test ! -f "$$key" || nosign= ;; esac; \
	echo "$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod" \
	     "INSTALL_MOD_PATH=$(abspath $(DESTDIR)) INSTALL_MOD_DIR=updates" \
	     "$$nosign modules_install"; \
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod \
		INSTALL_MOD_PATH=$(abspath $(DESTDIR)) INSTALL_MOD_DIR=updates \
		$$nosign modules_install
	$(INSTALL_DEPMOD)

install-user: $(USER_BIN)
	$(INSTALL) -d $(INSTALL_BINDIR)
	$(INSTALL) -m 0755 $(USER_BIN) $(INSTALL_BINDIR)/gpulat

install-man:
	$(INSTALL) -d $(INSTALL_MAN8DIR)
	$(INSTALL) -m 0644 Documentation/gpulat.8 $(INSTALL_MAN8DIR)/gpulat.8

install-fleet:
	$(INSTALL) -d $(INSTALL_UDEVDIR) $(INSTALL_UNITDIR)
	$(INSTALL) -m 0644 scripts/fleet/$(FLEET_RULES) $(INSTALL_UDEVDIR)/$(FLEET_RULES)
	@for u in $(FLEET_UNITS); do \
		echo "sed 's|/usr/local/sbin/gpulat |$(PREFIX)/sbin/gpulat |' scripts/fleet/$$u > $(INSTALL_UNITDIR)/$$u"; \
		sed 's|/usr/local/sbin/gpulat |$(PREFIX)/sbin/gpulat |' \
			scripts/fleet/$$u >$(INSTALL_UNITDIR)/$$u.tmp && \
		chmod 0644 $(INSTALL_UNITDIR)/$$u.tmp && \
		mv -f $(INSTALL_UNITDIR)/$$u.tmp $(INSTALL_UNITDIR)/$$u || exit 1; \
	done
	@echo "note: the udev rule and the units are in place; left to do, as root:"
	@echo "  groupadd --system gpulat"
	@echo "  useradd --system --gid gpulat --home-dir /nonexistent --shell /usr/sbin/nologin gpulat"
	@echo "  udevadm control --reload; udevadm trigger --name-match=gpulat"
	@echo "  systemctl daemon-reload; systemctl enable --now gpulat.service (or gpulat-bpf.service)"
	@echo "  (Documentation/service.rst)"

uninstall-module:
	rm -f $(addprefix $(INSTALL_MODDIR)/,$(INSTALL_MODNAMES))
	@if [ -d $(DESTDIR)/lib/modules/$(KVER) ]; then \
		echo '$(INSTALL_DEPMOD)'; $(INSTALL_DEPMOD); fi

uninstall-user:
	rm -f $(INSTALL_BINDIR)/gpulat

uninstall-man:
	rm -f $(INSTALL_MAN8DIR)/gpulat.8

uninstall-fleet:
	rm -f $(INSTALL_UDEVDIR)/$(FLEET_RULES) \
	      $(addprefix $(INSTALL_UNITDIR)/,$(FLEET_UNITS))

# What DKMS builds from: dkms.conf, VERSION and the module's sources, not
# the build output, the tests or build/ (`dkms add .` at the top would
# copy all of it).  Then: dkms install gpulat/$(GPULAT_PKG_VERSION).
dkms-src:
	@case "$(DKMS_SRCDIR)" in */gpulat-*) ;; *) echo "dkms-src:" \
	  "DKMS_SRCDIR must end in gpulat-VERSION" >&2; exit 1 ;; esac
	rm -rf $(DKMS_SRCDIR)
	$(INSTALL) -d $(DKMS_SRCDIR)
	$(INSTALL) -m 0644 dkms.conf VERSION Kbuild $(DKMS_SRCDIR)/
	find kmod -type f ! -name '.*' ! -name '*.o' ! -name '*.ko' \
		! -name '*.mod' ! -name '*.mod.c' ! -name modules.order \
		! -name Module.symvers ! -name '*.d' \
		-exec $(INSTALL) -D -m 0644 {} $(DKMS_SRCDIR)/{} \;

install-check: $(USER_BIN)
	scripts/install-check $(INSTALL_CHECK_KERNEL)
