/* SPDX-License-Identifier: MIT */
/* Matching found functions against the drivers linked into the program. */
#include <ibboot/pci.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>

static bool driver_matches(const struct pci_driver *drv, const struct pci_device *pdev,
			   const struct pci_device_id **id)
{
	for (unsigned j = 0; j < drv->n_ids; j++) {
		const struct pci_device_id *e = &drv->ids[j];

		if (e->vendor == pdev->vendor && e->device == pdev->device) {
			if (id)
				*id = e;
			return true;
		}
	}
	return false;
}

const struct pci_driver *pci_match_driver(const struct pci_driver *const *table, size_t n,
					  const struct pci_device *pdev,
					  const struct pci_device_id **id)
{
	const struct pci_driver_entry *e;

	if (table) {
		for (size_t i = 0; i < n; i++)
			if (driver_matches(table[i], pdev, id))
				return table[i];
		return NULL;
	}
	table_for_each(e, pci_drivers)
		if (driver_matches(e->driver, pdev, id))
			return e->driver;
	return NULL;
}

int pci_probe_drivers(void)
{
	int bound = 0;

	for (struct pci_device *d = pci_devices(); d; d = d->next) {
		const struct pci_device_id *id;
		const struct pci_driver *drv;

		if (d->driver)
			continue;
		drv = pci_match_driver(NULL, 0, d, &id);
		if (!drv)
			continue;
		pci_say(d->bdf, "%s (%s)\n", id->name, drv->name);
		pci_enable_device(d);
		int rc = drv->probe(d, id);
		if (rc) {
			pci_say(d->bdf, "%s probe failed: %s\n", drv->name, ib_strerror(rc));
			continue;
		}
		d->driver = drv;
		bound++;
	}
	return bound;
}

int pci_remove_drivers(void)
{
	int not_stopped = 0;

	for (struct pci_device *d = pci_devices(); d; d = d->next) {
		if (d->driver && d->driver->remove)
			d->driver->remove(d);
		d->driver = NULL;
		if (d->dma_not_stopped) {
			/* The driver's reset failed. Clearing bus master enable is all that is left;
			 * a device that ignores config cycles may ignore that too. */
			pci_set_bus_master(d, false);
			pci_say(d->bdf, "could not be stopped; bus mastering cleared\n");
			not_stopped++;
		}
	}
	return not_stopped;
}
