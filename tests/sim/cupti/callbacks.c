/*
 * callbacks.c - the callback API of the simulated CUPTI: one subscriber at a
 * time (a second cuptiSubscribe fails with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, as the real one does, and
 * as cuptiSubscribe_v2 also does in CUDA 13), per-callback enable bits, and
 * delivery of runtime API enter/exit callbacks. Only the runtime domain ever
 * fires: the sim has no driver API, resources, NVTX or state callbacks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cupti_sim.h"

#define CS_SUBSCRIBER_NAME_LEN 64 /* "CUPTI for <name>", as the real one */

/* The one subscriber. Its storage is static and never freed, so a callback
 * racing with cuptiUnsubscribe on another thread reads stale but valid data. */
struct CUpti_Subscriber_st {
    atomic_int active;                  /* subscribed now */
    CUpti_CallbackFunc _Atomic fn;      /* its callback */
    void *_Atomic userdata;             /* its userdata */
    char name[CS_SUBSCRIBER_NAME_LEN];  /* for a refused second subscriber */
    /* enable bits per domain and callback id */
    atomic_uchar on[CUPTI_CB_DOMAIN_SIZE][CUPTI_DRIVER_TRACE_CBID_SIZE];
};

static struct CUpti_Subscriber_st cs_sub;
static pthread_mutex_t cs_sub_lock = PTHREAD_MUTEX_INITIALIZER; /* subscribe/unsubscribe */
static char cs_context_token; /* stands for the one CUcontext */

/* Number of callback ids in `domain`, 0 for an invalid domain. */
static uint32_t cs_domain_size(CUpti_CallbackDomain domain)
{
    switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API: return CUPTI_DRIVER_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RUNTIME_API: return CUPTI_RUNTIME_TRACE_CBID_SIZE;
    case CUPTI_CB_DOMAIN_RESOURCE: return CUPTI_CBID_RESOURCE_SIZE;
    case CUPTI_CB_DOMAIN_SYNCHRONIZE: return CUPTI_CBID_SYNCHRONIZE_SIZE;
    case CUPTI_CB_DOMAIN_NVTX: return CUPTI_CBID_NVTX_SIZE;
    case CUPTI_CB_DOMAIN_STATE: return CUPTI_CBID_STATE_SIZE;
    default: return 0;
    }
}

/* Every domain's ids fit a row of the enable table (sized by the largest). */
_Static_assert((int)CUPTI_RUNTIME_TRACE_CBID_SIZE <= (int)CUPTI_DRIVER_TRACE_CBID_SIZE &&
                   (int)CUPTI_CBID_NVTX_SIZE <= (int)CUPTI_DRIVER_TRACE_CBID_SIZE &&
                   (int)CUPTI_CBID_RESOURCE_SIZE <= (int)CUPTI_DRIVER_TRACE_CBID_SIZE,
               "enable table row too short");

static int cs_is_subscriber(CUpti_SubscriberHandle s)
{
    return s == &cs_sub && atomic_load(&cs_sub.active);
}

static CUptiResult cs_subscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                void *userdata, const char *name, char *old_name,
                                size_t old_size)
{
    cs_attach();
    if (subscriber == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    pthread_mutex_lock(&cs_sub_lock);
    if (atomic_load(&cs_sub.active)) {
        if (old_name != NULL && old_size > 0)
            snprintf(old_name, old_size, "%s", cs_sub.name);
        pthread_mutex_unlock(&cs_sub_lock);
        return cs_error(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    }
    for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
        for (int i = 0; i < CUPTI_DRIVER_TRACE_CBID_SIZE; i++)
            atomic_store(&cs_sub.on[d][i], 0);
    snprintf(cs_sub.name, sizeof cs_sub.name, "CUPTI for %.*s", CUPTI_SUBSCRIBER_NAME_MAX_LEN,
             name ? name : "unnamed subscriber");
    atomic_store(&cs_sub.fn, callback);
    atomic_store(&cs_sub.userdata, userdata);
    atomic_store(&cs_sub.active, 1);
    pthread_mutex_unlock(&cs_sub_lock);
    *subscriber = &cs_sub;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                    void *userdata)
{
    return cs_subscribe(subscriber, callback, userdata, NULL, NULL, 0);
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                       void *userdata, CUpti_SubscriberParams *pParams)
{
    if (pParams == NULL)
        return cs_subscribe(subscriber, callback, userdata, NULL, NULL, 0);
    if (pParams->structSize == 0)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    return cs_subscribe(subscriber, callback, userdata, pParams->subscriberName,
                        pParams->oldSubscriberName, pParams->oldSubscriberSize);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    cs_attach();
    pthread_mutex_lock(&cs_sub_lock);
    if (!cs_is_subscriber(subscriber)) {
        pthread_mutex_unlock(&cs_sub_lock);
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    }
    atomic_store(&cs_sub.active, 0);
    pthread_mutex_unlock(&cs_sub_lock);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    cs_attach();
    if (!cs_is_subscriber(subscriber) || cbid >= cs_domain_size(domain))
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    atomic_store(&cs_sub.on[domain][cbid], enable != 0);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                       CUpti_CallbackDomain domain)
{
    cs_attach();
    uint32_t n = cs_domain_size(domain);
    if (!cs_is_subscriber(subscriber) || n == 0)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    for (uint32_t i = 0; i < n; i++)
        atomic_store(&cs_sub.on[domain][i], enable != 0);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableAllDomains(uint32_t enable, CUpti_SubscriberHandle subscriber)
{
    if (!cs_is_subscriber(subscriber))
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    for (int d = CUPTI_CB_DOMAIN_INVALID + 1; d < CUPTI_CB_DOMAIN_SIZE; d++)
        cuptiEnableDomain(enable, subscriber, (CUpti_CallbackDomain)d);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber,
                                           CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    if (enable == NULL || !cs_is_subscriber(subscriber) || cbid >= cs_domain_size(domain))
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *enable = atomic_load(&cs_sub.on[domain][cbid]);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSupportedDomains(size_t *domainCount, CUpti_DomainTable *domainTable)
{
    static const CUpti_CallbackDomain domains[] = {
        CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RESOURCE,
        CUPTI_CB_DOMAIN_SYNCHRONIZE, CUPTI_CB_DOMAIN_NVTX, CUPTI_CB_DOMAIN_STATE,
    };
    if (domainCount == NULL || domainTable == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *domainCount = sizeof domains / sizeof domains[0];
    *domainTable = (CUpti_DomainTable)domains;
    return CUPTI_SUCCESS;
}

void cs_cb_detach(void)
{
    pthread_mutex_lock(&cs_sub_lock);
    atomic_store(&cs_sub.active, 0);
    pthread_mutex_unlock(&cs_sub_lock);
}

void cs_cb_api(const cusim_api_call *c, CUpti_ApiCallbackSite site, uint64_t *corr_data,
               void *ret)
{
    CUpti_CallbackDomain dom = c->driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    if (!atomic_load(&cs_sub.active) || c->cbid >= cs_domain_size(dom) ||
        !atomic_load(&cs_sub.on[dom][c->cbid]))
        return;
    CUpti_CallbackFunc fn = atomic_load(&cs_sub.fn);
    if (fn == NULL)
        return;
    CUpti_CallbackData data;
    memset(&data, 0, sizeof data);
    data.callbackSite = site;
    data.functionName = c->name;
    data.functionParams = c->params;
    data.functionReturnValue = ret;
    data.symbolName = c->symbol_name;
    data.context = (CUcontext)(void *)&cs_context_token;
    data.contextUid = 1;
    data.correlationData = corr_data;
    data.correlationId = c->correlation_id;
    fn(atomic_load(&cs_sub.userdata), dom, c->cbid, &data);
}

/* ---- graphs: resource callbacks and ids ------------------------------------- */

void cs_cb_graph(const cusim_graph_event *e)
{
    static const uint32_t cbid[] = {
        [CUSIM_GRAPH_NODE_CREATED] = CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
        [CUSIM_GRAPH_NODE_CLONED] = CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
        [CUSIM_GRAPH_EXEC_CREATED] = CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
    };
    uint32_t id = cbid[e->what];
    if (!atomic_load(&cs_sub.active) || !atomic_load(&cs_sub.on[CUPTI_CB_DOMAIN_RESOURCE][id]))
        return;
    CUpti_CallbackFunc fn = atomic_load(&cs_sub.fn);
    if (fn == NULL)
        return;
    CUpti_GraphData g;
    memset(&g, 0, sizeof g);
    g.graph = (CUgraph)e->graph;
    g.node = (CUgraphNode)e->node;
    g.originalNode = (CUgraphNode)e->original;
    g.nodeType = (CUgraphNodeType)e->node_type;
    g.graphExec = (CUgraphExec)e->exec;
    CUpti_ResourceData r;
    memset(&r, 0, sizeof r);
    r.context = (CUcontext)(void *)&cs_context_token;
    r.resourceDescriptor = &g;
    fn(atomic_load(&cs_sub.userdata), CUPTI_CB_DOMAIN_RESOURCE, id, &r);
}

CUptiResult CUPTIAPI cuptiGetGraphNodeId(CUgraphNode node, uint64_t *nodeId)
{
    cusim_graph_node *n = cusim_graph_node_get(node);
    if (n == NULL || nodeId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *nodeId = cusim_graph_node_id(n);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphId(CUgraph graph, uint32_t *pId)
{
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *pId = cusim_graph_id(g);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphExecId(CUgraphExec graphExec, uint32_t *pId)
{
    cusim_graph_exec *e = cusim_graph_exec_get(graphExec);
    if (e == NULL || pId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *pId = cusim_graph_exec_id(e);
    return CUPTI_SUCCESS;
}
