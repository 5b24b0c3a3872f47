// Lines written for these tests in the shapes of the 16 Loghub samples
// (described in the shared data README; the logs themselves are not in the
// repository), each read with the field and pattern or named format a user
// would give pace for that log. Most end in `\r`, as the samples do.

import Testing
@testable import PaceCore

struct LogShape: CustomTestStringConvertible, Sendable {
    let name: String
    let line: String
    let format: String
    let field: Int
    let year: Int
    let expected: Instant

    init(_ name: String, _ line: String, _ format: String, field: Int = 1, year: Int = testYear, _ expected: Instant) {
        (self.name, self.line, self.format, self.field, self.year, self.expected) = (name, line, format, field, year, expected)
    }

    var testDescription: String { "\(name) (\(format), field \(field))" }

    var timeFormat: TimeFormat {
        if format.contains("%") { return pattern(format) }
        return TimeFormat.names.first { $0.0 == format }!.1
    }
}

extension Formats {
    @Suite struct LoghubShapeTests {
        static let shapes: [LogShape] = [
            LogShape("Android", "03-17 16:13:38.811  1702  2395 D WindowManager: focus moved\r",
                     "%m-%d %H:%M:%S.%f", ns(1_773_764_018, 811_000_000)),
            LogShape("Apache", "[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok\r",
                     "[%a %b %d %H:%M:%S %Y]", ns(1_133_671_664)),
            LogShape("BGL epoch", "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02 RAS KERNEL INFO ok\r",
                     "%s", field: 2, ns(1_117_838_570)),
            LogShape("BGL epoch, unix", "KERNDTLB 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 x\r",
                     "unix", field: 2, ns(1_117_838_570)),
            LogShape("BGL local", "- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 R02 RAS\r",
                     "%Y-%m-%d-%H.%M.%S.%f", field: 5, ns(1_117_813_370, 675_872_000)),
            LogShape("HDFS", "081109 203615 148 INFO dfs.DataNode$PacketResponder: block done\r",
                     "%y%m%d %H%M%S", ns(1_226_262_975)),
            LogShape("HPC", "134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component State Change\r",
                     "%s", field: 5, ns(1_077_804_742)),
            LogShape("Hadoop", "2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: up\r",
                     "%Y-%m-%d %H:%M:%S,%f", ns(1_445_191_307, 978_000_000)),
            LogShape("Hadoop, iso8601", "2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: up\r",
                     "iso8601", ns(1_445_191_307, 978_000_000)),
            LogShape("HealthApp", "20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579\r",
                     "%Y%m%d-%H:%M:%S:%L", ns(1_514_067_329, 606_000_000)),
            LogShape("HealthApp, unpadded", "20171224-1:1:0:935|Step_SPUtils|30002312|getTodayTotalDetailSteps\r",
                     "%Y%m%d-%H:%M:%S:%L", ns(1_514_077_260, 935_000_000)),
            LogShape("HealthApp, 2-digit ms", "20171224-1:1:0:11|Step_LSC|30002312|x\r",
                     "%Y%m%d-%H:%M:%S:%L", ns(1_514_077_260, 11_000_000)),
            LogShape("Linux", "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass; user unknown\r",
                     "%b %e %H:%M:%S", year: 2005, ns(1_118_762_161)),
            LogShape("Linux, padded day", "Jul  1 00:00:00 combo syslogd 1.4.1: restart.\r",
                     "%b %e %H:%M:%S", year: 2005, ns(1_120_176_000)),
            LogShape("Linux, syslog", "Jul  1 00:00:00 combo syslogd 1.4.1: restart.\r",
                     "syslog", year: 2005, ns(1_120_176_000)),
            LogShape("Mac", "Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: ARPT: 620701.011328: wl0\r",
                     "%b %e %H:%M:%S", ns(1_782_896_455)),
            LogShape("Mac, syslog", "Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: ARPT: 620701.011328: wl0\r",
                     "syslog", ns(1_782_896_455)),
            LogShape("OpenSSH", "Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping checking failed\r",
                     "%b %d %H:%M:%S", ns(1_796_885_746)),
            LogShape("OpenSSH, syslog", "Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping checking failed\r",
                     "syslog", ns(1_796_885_746)),
            LogShape("OpenStack", "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova.osapi_compute x\r",
                     "%Y-%m-%d %H:%M:%S.%f", field: 2, ns(1_494_892_800, 8_000_000)),
            LogShape("OpenStack, iso8601", "nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO x\r",
                     "iso8601", field: 2, ns(1_494_892_800, 8_000_000)),
            LogShape("Proxifier", "[10.30 16:49:06] chrome.exe - proxy.example.com:443 open through proxy HTTPS",
                     "[%m.%d %H:%M:%S]", ns(1_793_378_946)),
            LogShape("Spark", "17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend: Registered signal handlers\r",
                     "%y/%m/%d %H:%M:%S", ns(1_497_039_040)),
            LogShape("Thunderbird epoch", "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]: closed\r",
                     "%s", field: 2, ns(1_131_566_461)),
            LogShape("Thunderbird local", "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]: closed\r",
                     "%b %e %H:%M:%S", field: 5, year: 2005, ns(1_131_537_661)),
            LogShape("Thunderbird, syslog", "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond(pam_unix)[2915]: closed\r",
                     "syslog", field: 5, year: 2005, ns(1_131_537_661)),
            LogShape("Windows", "2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack v6.1\r",
                     "%Y-%m-%d %H:%M:%S,", ns(1_475_037_030)),
            LogShape("Windows, iso8601", "2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack v6.1\r",
                     "iso8601", ns(1_475_037_030)),
            LogShape("Zookeeper", "2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:QuorumPeer@774] - LOOKING\r",
                     "%Y-%m-%d %H:%M:%S,%f", ns(1_438_191_704, 747_000_000)),
            LogShape("Zookeeper, auto", "2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:QuorumPeer@774] - LOOKING\r",
                     "auto", ns(1_438_191_704, 747_000_000)),
        ]

        @Test(arguments: shapes)
        func reads(_ shape: LogShape) {
            #expect(readOne(shape.line, format: shape.timeFormat, field: shape.field, year: shape.year) == at(shape.expected))
        }
    }
}
