/*
 * cudart_errors.c - cudaGetErrorName / cudaGetErrorString tables: the same
 * names and messages the real libcudart.so.13 returns (taken from the CUDA
 * 13.0 toolkit), so programs print what they would print on a GPU.
 */
#include "cudart_internal.h"

typedef struct err_text {
    cudaError_t code; /* value */
    const char *name; /* cudaGetErrorName */
    const char *text; /* cudaGetErrorString; NULL: the name is used */
} err_text;

static const err_text errors[] = {
    {cudaErrorAddressOfConstant, "cudaErrorAddressOfConstant", "invalid address of constant"},
    {cudaErrorAlreadyAcquired, "cudaErrorAlreadyAcquired", "resource already acquired"},
    {cudaErrorAlreadyMapped, "cudaErrorAlreadyMapped", "resource already mapped"},
    {cudaErrorApiFailureBase, "cudaErrorApiFailureBase", "api failure base"},
    {cudaErrorArrayIsMapped, "cudaErrorArrayIsMapped", "array is mapped"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorCallRequiresNewerDriver, "cudaErrorCallRequiresNewerDriver", "API call is not supported in the installed CUDA driver"},
    {cudaErrorCapturedEvent, "cudaErrorCapturedEvent", NULL},
    {cudaErrorCdpNotSupported, "cudaErrorCdpNotSupported", NULL},
    {cudaErrorCdpVersionMismatch, "cudaErrorCdpVersionMismatch", NULL},
    {cudaErrorCompatNotSupportedOnDevice, "cudaErrorCompatNotSupportedOnDevice", "forward compatibility was attempted on non supported HW"},
    {cudaErrorContained, "cudaErrorContained", NULL},
    {cudaErrorContextIsDestroyed, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorDeviceAlreadyInUse, "cudaErrorDeviceAlreadyInUse", NULL},
    {cudaErrorDeviceNotLicensed, "cudaErrorDeviceNotLicensed", "device doesn't have valid Grid license"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},
    {cudaErrorDuplicateSurfaceName, "cudaErrorDuplicateSurfaceName", "duplicate surface name"},
    {cudaErrorDuplicateTextureName, "cudaErrorDuplicateTextureName", "duplicate texture name"},
    {cudaErrorDuplicateVariableName, "cudaErrorDuplicateVariableName", "duplicate global variable looked up by string name"},
    {cudaErrorECCUncorrectable, "cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"},
    {cudaErrorExternalDevice, "cudaErrorExternalDevice", NULL},
    {cudaErrorFileNotFound, "cudaErrorFileNotFound", "file not found"},
    {cudaErrorFunctionNotLoaded, "cudaErrorFunctionNotLoaded", NULL},
    {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {cudaErrorHardwareStackError, "cudaErrorHardwareStackError", "hardware stack error"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorIncompatibleDriverContext, "cudaErrorIncompatibleDriverContext", "incompatible driver context"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace", NULL},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor", NULL},
    {cudaErrorInvalidClusterSize, "cudaErrorInvalidClusterSize", NULL},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidFilterSetting, "cudaErrorInvalidFilterSetting", NULL},
    {cudaErrorInvalidGraphicsContext, "cudaErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInvalidNormSetting, "cudaErrorInvalidNormSetting", NULL},
    {cudaErrorInvalidPc, "cudaErrorInvalidPc", "invalid program counter"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {cudaErrorInvalidResourceConfiguration, "cudaErrorInvalidResourceConfiguration", "one or more resources are insufficient or non-applicable for the operation"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorInvalidResourceType, "cudaErrorInvalidResourceType", NULL},
    {cudaErrorInvalidSource, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {cudaErrorInvalidSurface, "cudaErrorInvalidSurface", "invalid surface reference"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference"},
    {cudaErrorInvalidTextureBinding, "cudaErrorInvalidTextureBinding", "texture is not bound to a pointer"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorJitCompilationDisabled, "cudaErrorJitCompilationDisabled", "PTX JIT compilation was disabled"},
    {cudaErrorJitCompilerNotFound, "cudaErrorJitCompilerNotFound", NULL},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorLaunchFileScopedSurf, "cudaErrorLaunchFileScopedSurf", NULL},
    {cudaErrorLaunchFileScopedTex, "cudaErrorLaunchFileScopedTex", NULL},
    {cudaErrorLaunchIncompatibleTexturing, "cudaErrorLaunchIncompatibleTexturing", "launch uses incompatible texturing mode"},
    {cudaErrorLaunchMaxDepthExceeded, "cudaErrorLaunchMaxDepthExceeded", "launch would exceed maximum depth of nested launches"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchPendingCountExceeded, "cudaErrorLaunchPendingCountExceeded", "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorLossyQuery, "cudaErrorLossyQuery", NULL},
    {cudaErrorMapBufferObjectFailed, "cudaErrorMapBufferObjectFailed", "mapping of buffer object failed"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorMemoryValueTooLarge, "cudaErrorMemoryValueTooLarge", "memory size or pointer value too large to fit in 32 bit"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorMixedDeviceExecution, "cudaErrorMixedDeviceExecution", NULL},
    {cudaErrorMpsClientTerminated, "cudaErrorMpsClientTerminated", NULL},
    {cudaErrorMpsConnectionFailed, "cudaErrorMpsConnectionFailed", NULL},
    {cudaErrorMpsMaxClientsReached, "cudaErrorMpsMaxClientsReached", NULL},
    {cudaErrorMpsMaxConnectionsReached, "cudaErrorMpsMaxConnectionsReached", "the hardware resources required to support device connections have been exhausted"},
    {cudaErrorMpsRpcFailure, "cudaErrorMpsRpcFailure", NULL},
    {cudaErrorMpsServerNotReady, "cudaErrorMpsServerNotReady", NULL},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {cudaErrorNotMapped, "cudaErrorNotMapped", "resource not mapped"},
    {cudaErrorNotMappedAsArray, "cudaErrorNotMappedAsArray", "resource not mapped as array"},
    {cudaErrorNotMappedAsPointer, "cudaErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented", "feature not yet implemented"},
    {cudaErrorNvlinkUncorrectable, "cudaErrorNvlinkUncorrectable", NULL},
    {cudaErrorOperatingSystem, "cudaErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {cudaErrorPriorLaunchFailure, "cudaErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {cudaErrorProfilerAlreadyStarted, "cudaErrorProfilerAlreadyStarted", "profiler already started"},
    {cudaErrorProfilerAlreadyStopped, "cudaErrorProfilerAlreadyStopped", "profiler already stopped"},
    {cudaErrorProfilerDisabled, "cudaErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {cudaErrorProfilerNotInitialized, "cudaErrorProfilerNotInitialized", "profiler not initialized: call cudaProfilerInitialize()"},
    {cudaErrorSetOnActiveProcess, "cudaErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {cudaErrorSharedObjectInitFailed, "cudaErrorSharedObjectInitFailed", "shared object initialization failed"},
    {cudaErrorSharedObjectSymbolNotFound, "cudaErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {cudaErrorSoftwareValidityNotEstablished, "cudaErrorSoftwareValidityNotEstablished", "integrity checks failed"},
    {cudaErrorStartupFailure, "cudaErrorStartupFailure", "startup failure in cuda runtime"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge", NULL},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorStubLibrary, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorSyncDepthExceeded, "cudaErrorSyncDepthExceeded", NULL},
    {cudaErrorSynchronizationError, "cudaErrorSynchronizationError", "incorrect use of __syncthreads()"},
    {cudaErrorSystemDriverMismatch, "cudaErrorSystemDriverMismatch", NULL},
    {cudaErrorSystemNotReady, "cudaErrorSystemNotReady", "system not yet initialized"},
    {cudaErrorTensorMemoryLeak, "cudaErrorTensorMemoryLeak", NULL},
    {cudaErrorTextureFetchFailed, "cudaErrorTextureFetchFailed", "fetch from texture failed"},
    {cudaErrorTextureNotBound, "cudaErrorTextureNotBound", NULL},
    {cudaErrorTimeout, "cudaErrorTimeout", "wait operation timed out"},
    {cudaErrorTooManyPeers, "cudaErrorTooManyPeers", "peer mapping resources exhausted"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
    {cudaErrorUnmapBufferObjectFailed, "cudaErrorUnmapBufferObjectFailed", "unmapping of buffer object failed"},
    {cudaErrorUnsupportedDevSideSync, "cudaErrorUnsupportedDevSideSync", "the provided PTX contains unsupported call to cudaDeviceSynchronize"},
    {cudaErrorUnsupportedExecAffinity, "cudaErrorUnsupportedExecAffinity", "the provided execution affinity is not supported"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {cudaErrorUnsupportedPtxVersion, "cudaErrorUnsupportedPtxVersion", "the provided PTX was compiled with an unsupported toolchain."},
    {cudaSuccess, "cudaSuccess", "no error"},
};

static const err_text *find(cudaError_t e)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
        if (errors[i].code == e)
            return &errors[i];
    return NULL;
}

/* Like the real runtime, these two are not traced and need no device. */
CUDART_EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    const err_text *t = find(error);
    return t != NULL ? t->name : "cudaErrorUnknown";
}

CUDART_EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    const err_text *t = find(error);
    if (t == NULL)
        return "unrecognized error code";
    return t->text != NULL ? t->text : t->name;
}
