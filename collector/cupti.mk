# collector/cupti.mk: the CUPTI part of the collector (appends to COLLECTOR_OBJS).
