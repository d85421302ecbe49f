# PRM accessor generator: util/prm/hermon-prm.txt → build/include/ibboot/hermon_prm.h (generated).
PRMGEN := build/prmgen/prmgen

$(PRMGEN): util/prmgen/prmgen.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

# Written to a temporary file first so a failed run never leaves a half header behind.
$(PRM_H): $(PRM_TXT) $(PRMGEN)
	@mkdir -p $(@D)
	$(PRMGEN) $(PRM_TXT) $@.tmp && mv $@.tmp $@

prm: $(PRM_H)
ALL_TARGETS += $(PRM_H)
