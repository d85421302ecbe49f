/* SPDX-License-Identifier: MIT */
/* The Hermon driver's face towards the IB core and the console (hermon_ib.c). */
#ifndef IBBOOT_HERMON_IB_H
#define IBBOOT_HERMON_IB_H

struct pci_device;
struct ib_device;

/* Brings the HCA up and registers it with the IB core (the PCI driver's probe). */
int hermon_ib_probe(struct pci_device *pdev, struct ib_device **out);
/* Unregisters and quiesces: call before handing the machine to an OS. */
void hermon_ib_remove(struct pci_device *pdev);
/* The console's `fwdump` for one IB device driven by hermon. */
void hermon_ib_dump(struct ib_device *dev);
/* Dumps every registered Hermon device (the shell's `fwdump`); -ENODEV if there is none. */
int hermon_fwdump_all(void);
struct fwdump_out;
/* The boot report's part (hermon_dump.c): every registered device's FWDUMP, and its identity as
 * report lines ("hca: NAME pci VENDOR:DEVICE fw X.Y.Z node-guid G ports N", then one "port: ..."
 * line each). Both return how many devices they wrote. */
int hermon_fwdump_write(const struct fwdump_out *out);
int hermon_identity_write(const struct fwdump_out *out);

#endif
